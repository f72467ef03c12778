// SDL2 from Debian (libsdl2-dev), for the `Display` wrapper only. SDL's window-position
// macros and the thread-creation macro of some platforms are not imported into Swift,
// so they are forwarded here as one-line static inlines.
#ifndef SHIMMERD_CSDL2_SHIM_H
#define SHIMMERD_CSDL2_SHIM_H
#include <SDL2/SDL.h>   // Debian: libsdl2-dev (scripts/setup.sh)

static inline int shim_sdl_windowpos_undefined(void) { return SDL_WINDOWPOS_UNDEFINED; }
static inline SDL_Thread *shim_sdl_create_thread(SDL_ThreadFunction fn, const char *name, void *data) {
    return SDL_CreateThread(fn, name, data);
}
#endif
