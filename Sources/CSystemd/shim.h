#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>

/* sd_bus_call_method_async() is variadic, which Swift cannot call: a method call with one
 * string argument (GetNameOwner(name), GetAll(interface)), spelled out. */
static inline int shimmerd_bus_call_with_string_async(sd_bus *bus, sd_bus_slot **slot, const char *destination,
                                                      const char *path, const char *interface, const char *member,
                                                      const char *argument, sd_bus_message_handler_t callback,
                                                      void *userdata) {
    return sd_bus_call_method_async(bus, slot, destination, path, interface, member, callback, userdata, "s", argument);
}
