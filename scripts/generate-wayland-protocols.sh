#!/usr/bin/env bash
# Regenerates the C glue of the Wayland protocols `shimmerd view --background` speaks
# besides the core protocol, from the XML files vendored in
# Sources/CWaylandProtocols/protocols/, with wayland-scanner (Debian: libwayland-bin).
# The output is checked in, so a build needs neither wayland-scanner nor the XML:
#   - wlr-layer-shell-unstable-v1 (from swaywm/wlr-protocols): the client header, with the
#     requests as static inline functions, goes beside the libwayland-client shim
#     (Sources/CWaylandClient), and its interface tables (private code) into the C target
#     Sources/CWaylandProtocols;
#   - xdg-shell (from Debian's wayland-protocols 1.31,
#     /usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml): only its interface
#     tables, which the layer shell's get_popup request refers to (xdg_popup_interface).
# Run it after replacing an XML file; a diff afterwards is the change to review.
set -euo pipefail
cd "$(dirname "$0")/.."
protocols=Sources/CWaylandProtocols/protocols
wayland-scanner client-header "$protocols/wlr-layer-shell-unstable-v1.xml" \
    Sources/CWaylandClient/wlr-layer-shell-unstable-v1-client-protocol.h
wayland-scanner private-code "$protocols/wlr-layer-shell-unstable-v1.xml" \
    Sources/CWaylandProtocols/wlr-layer-shell-unstable-v1-protocol.c
wayland-scanner private-code "$protocols/xdg-shell.xml" \
    Sources/CWaylandProtocols/xdg-shell-protocol.c
