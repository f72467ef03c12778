#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>

/* sd_bus_call_method_async() is variadic, which Swift cannot call: the one call the
 * name watch makes, org.freedesktop.DBus.GetNameOwner(name), spelled out. */
static inline int shimmerd_bus_get_name_owner_async(sd_bus *bus, sd_bus_slot **slot, const char *name,
                                                    sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_call_method_async(bus, slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                    "org.freedesktop.DBus", "GetNameOwner", callback, userdata, "s", name);
}
