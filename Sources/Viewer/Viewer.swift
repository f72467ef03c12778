// Viewer: `shimmerd view`, a desktop window showing the shared-memory frames a running
// daemon writes (Sink.type = shm), for machines where a compositor owns the display and
// the framebuffer sink cannot be used; and `shimmerd view --background`, the same frames
// as the desktop's background on Wayland compositors with wlr-layer-shell
// (`BackgroundSession`, over the Wayland wrapper and the pure Backdrop; docs/BACKGROUND.md).
//
// Purpose: join the shm reader (Output), SDL2 (Display) and the card's font (Fonts):
// - the main thread owns SDL: it blocks in SDL_WaitEvent and paints;
// - a `FrameWatcher` thread blocks in FUTEX_WAIT on the segment's frame word (with a
//   timeout) and posts one SDL user event per change, at most once per display refresh;
//   it never touches SDL otherwise, and never polls the pixels;
// - without a segment, or before its first frame, the window shows a "waiting for
//   shimmerd" card (`WaitingScreen`), never an error: the daemon may start later, restart,
//   or replace the segment (another card size), and the window follows without a restart.
// Invariants: the segment is opened O_RDONLY and mapped PROT_READ: the viewer cannot
// write it. Per frame the only work is one texture upload and one present.
// Must not import: Runtime, Commands (it sits beside Runtime in layer 3, below Commands).
import Display
import SharedMemory

/// What `shimmerd view` was asked for.
package struct ViewerSettings: Sendable, Equatable {
    /// The segment: /dev/shm/NAME (`Sink.name`).
    package var name: String
    package var directory = "/dev/shm"
    /// fontconfig pattern of the waiting screen's text (the card's label font).
    package var font = "DejaVu Sans:style=Bold"
    /// Until a segment says otherwise: the default card, 350 x 233.333 pt at scale 2.
    package var defaultWidth = 700
    package var defaultHeight = 467
    /// The longest the watcher sleeps in FUTEX_WAIT before the main thread looks at the
    /// segment again (has it appeared, been replaced, lost its writer?). Only wakes of an
    /// idle window depend on it, never frames.
    package var housekeepingSeconds = 0.5

    package init(name: String) {
        self.name = name
    }

    package var path: String { directory + "/" + name }
}

/// The window's background around the card (the letterbox bars): dark grey, so the
/// black card keeps its outline on any window shape.
let windowBackground = BackgroundColor(red: 0x20, green: 0x20, blue: 0x20)
