// swift-tools-version:6.0
// SPDX-License-Identifier: Apache-2.0
//
// shimmerd: a tilt-driven gradient card, driven by a real IIO accelerometer.
//
// Layering (imports point down only; see STYLE.md and README "Module map"):
//   0  C shims (.systemLibrary): CIIO, CUdev, CSystemd, CPNG, CFreeType (FreeType and
//      fontconfig), CLinux, CSDL2, CDRM, CEvdev, and CPrefetch (a compiler builtin, no library)
//   1a typed wrappers, one per C library: LinuxSystem, IIO, Udev, Systemd, PNG, Fonts, Display, DRM,
//      Evdev;
//      and Logging (the logger and its rate limiter, over LinuxSystem)
//   1b pure core, no I/O: Motion, Color, Raster, CardKernels, CardKernelsAVX2, Card
//   2  adapters: Sensors, Output, Tracing
//   3  Runtime, Viewer, Commands, and the executables `shimmerd` and `shimmerd-view`
// Every module declares each module it imports (the import check of scripts/test.sh,
// `--explicit-target-dependency-import-check error`, sees only the transitive closure).
import PackageDescription

// The renderer's inner loop is compiled a second time for AVX2 CPUs and chosen at run
// time (Sources/CardKernels). The manifest is evaluated on the build host, so the flag is
// only given where the host is x86-64.
#if arch(x86_64)
let avx2Settings: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "haswell"])]
#else
let avx2Settings: [SwiftSetting] = []
#endif

// The renderer's inner loop is optimized in debug builds too: unoptimized, blending the
// dots of a card at scale 2 takes about 9 ms a frame, a third of a frame interval at
// 30 fps, which `shimmerd demo` (a debug build from scripts/demo.sh) and the tests of the
// daemon's frame rate run into. It is small, pure and tested on its own (CardKernelsTests).
let kernelSettings: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "shimmerd",
    products: [
        .executable(name: "shimmerd", targets: ["shimmerd"]),
        .executable(name: "shimmerd-view", targets: ["shimmerd-view"]),
    ],
    targets: [
        // Layer 0: C libraries from Debian.
        .systemLibrary(name: "CIIO", path: "Sources/CIIO", pkgConfig: "libiio",
                       providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CUdev", path: "Sources/CUdev", pkgConfig: "libudev",
                       providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev", "libfontconfig-dev"])]),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CDRM", path: "Sources/CDRM", pkgConfig: "libdrm",
                       providers: [.apt(["libdrm-dev"])]),
        // Accelerometers and game controllers' motion sensors that the kernel exposes as
        // input devices (evdev nodes).
        .systemLibrary(name: "CEvdev", path: "Sources/CEvdev", pkgConfig: "libevdev",
                       providers: [.apt(["libevdev-dev"])]),
        // Not a library: `__builtin_prefetch`, which Swift cannot spell, for the renderer's
        // inner loop (CardKernels, which stays free of I/O, is its only importer).
        .systemLibrary(name: "CPrefetch", path: "Sources/CPrefetch"),
        // SDL2 (apt libsdl2-dev) without pkgConfig: sdl2.pc's cflags carry -D_REENTRANT, which
        // SwiftPM drops with a "prohibited flag" warning on every build; the shim includes
        // <SDL2/SDL.h> and the module map links SDL2, which is all sdl2.pc would add.
        .systemLibrary(name: "CSDL2", path: "Sources/CSDL2"),

        // Layer 1a: typed wrappers.
        .target(name: "LinuxSystem", dependencies: ["CLinux"]),
        .target(name: "IIO", dependencies: ["CIIO"]),
        .target(name: "Udev", dependencies: ["CUdev"]),
        .target(name: "Systemd", dependencies: ["CSystemd"]),
        .target(name: "PNG", dependencies: ["CPNG"]),
        .target(name: "Fonts", dependencies: ["CFreeType"]),
        .target(name: "Display", dependencies: ["CSDL2"]),
        .target(name: "DRM", dependencies: ["CDRM"]),
        .target(name: "Evdev", dependencies: ["CEvdev"]),
        // The one log vocabulary (Logger, LogHandler, RateLimiter) of every layer above.
        .target(name: "Logging", dependencies: ["LinuxSystem"]),

        // Layer 1b: the pure core.
        // (libm is named explicitly: these modules import no libc overlay.)
        .target(name: "Motion", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Color", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Raster", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "CardKernels", dependencies: ["CPrefetch"], swiftSettings: kernelSettings),
        .target(name: "CardKernelsAVX2", dependencies: ["CardKernels"], swiftSettings: kernelSettings + avx2Settings),
        .target(name: "Card", dependencies: ["Color", "Raster", "CardKernels", "CardKernelsAVX2"],
                linkerSettings: [.linkedLibrary("m")]),

        // Layer 2: adapters.
        .target(name: "Sensors", dependencies: ["Motion", "IIO", "Udev", "Systemd", "Logging", "LinuxSystem", "Evdev"]),
        // The shared-memory frames protocol (header, reader): the daemon's shm sink and the
        // viewer both use it, so the viewer links no DRM, PNG or udev library.
        .target(name: "SharedMemory", dependencies: ["LinuxSystem", "Logging"]),
        .target(name: "Output", dependencies: ["Raster", "PNG", "LinuxSystem", "Logging", "DRM", "Udev", "SharedMemory"]),
        .target(name: "Tracing", dependencies: ["Motion", "LinuxSystem", "Logging"]),

        // Layer 3.
        .target(name: "Runtime", dependencies: [
            "Card", "Color", "Raster", "Motion", "Fonts", "Sensors", "Output", "DRM", "Tracing",
            "Logging", "Systemd", "LinuxSystem",
        ]),
        // `shimmerd view`: the shm frames in an SDL2 window (the only importer of Display).
        .target(name: "Viewer", dependencies: ["Display", "SharedMemory", "Fonts", "Raster", "Logging", "LinuxSystem", "Systemd"]),
        .target(name: "Commands", dependencies: ["Runtime", "Card", "Color", "Raster", "Motion", "PNG",
                                                 "Sensors", "Output", "Tracing", "Logging", "LinuxSystem",
                                                 "IIO", "Udev", "Systemd"]),
        .executableTarget(name: "shimmerd", dependencies: ["Commands"]),
        // The window of `shimmerd view`, apart so the daemon never links SDL2.
        .executableTarget(name: "shimmerd-view", dependencies: ["Viewer", "Logging"]),

        // Tests: one target per module with logic of its own to test, each named after it,
        // all on TestSupport (Tests/TestSupport: the helpers they share); plus the
        // end-to-end suite in Tests/IntegrationTests (Python + umockdev, run by
        // scripts/test.sh, not by SwiftPM).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "LinuxSystemTests", dependencies: ["LinuxSystem", "TestSupport"]),
        .testTarget(name: "PNGTests", dependencies: ["PNG", "TestSupport"]),
        .testTarget(name: "IIOTests", dependencies: ["IIO", "TestSupport"]),
        .testTarget(name: "UdevTests", dependencies: ["Udev", "TestSupport"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd", "TestSupport"]),
        .testTarget(name: "FontsTests", dependencies: ["Fonts", "TestSupport"]),
        // CSDL2: the tests build the events SDL_WaitEvent returns (SDL_Event).
        .testTarget(name: "DisplayTests", dependencies: ["Display", "CSDL2", "TestSupport"]),
        // CDRM: the tests build the kernel's own mode struct (drmModeModeInfo).
        .testTarget(name: "DRMTests", dependencies: ["DRM", "CDRM", "TestSupport"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "TestSupport"]),
        .testTarget(name: "MotionTests", dependencies: ["Motion", "TestSupport"]),
        .testTarget(name: "ColorTests", dependencies: ["Color", "TestSupport"]),
        .testTarget(name: "RasterTests", dependencies: ["Raster", "TestSupport"]),
        .testTarget(name: "CardKernelsTests", dependencies: ["CardKernels", "CardKernelsAVX2", "LinuxSystem", "TestSupport"]),
        .testTarget(name: "CardTests", dependencies: ["Card", "Color", "Raster", "Runtime", "Output", "PNG", "LinuxSystem",
                                                    "TestSupport"],
                    exclude: ["Golden"]),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "Motion", "IIO", "Evdev", "Logging", "TestSupport"]),
        .testTarget(name: "OutputTests", dependencies: ["Output", "SharedMemory", "Raster", "PNG", "LinuxSystem", "Logging", "TestSupport"]),
        .testTarget(name: "TracingTests", dependencies: ["Tracing", "Logging", "Motion", "LinuxSystem", "TestSupport"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime", "Motion", "Sensors", "Output", "Tracing", "Logging", "LinuxSystem", "TestSupport"]),
        .testTarget(name: "ViewerTests", dependencies: ["Viewer", "TestSupport"]),
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "Runtime", "Tracing", "TestSupport"]),
    ]
)

// Fuzz targets (Fuzz/, scripts/fuzz.sh): libFuzzer executables, one per parser. They are
// declared only when SHIMMERD_FUZZ=1 because they need libFuzzer's runtime, which only
// `-sanitize=fuzzer` links (each main.swift hands its test to `LLVMFuzzerRunDriver`). Kept
// in this package rather than a separate one so that they reach the parsers' `package`
// API without turning the modules into public library products.
if Context.environment["SHIMMERD_FUZZ"] == "1" {
    package.targets += [
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/Sources/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/Sources/FuzzSupport"),
        .executableTarget(name: "FuzzConfiguration", dependencies: ["Runtime", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzConfiguration"),
        .executableTarget(name: "FuzzMountMatrix", dependencies: ["Motion", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzMountMatrix"),
        .executableTarget(name: "FuzzSysfsNumber", dependencies: ["Motion", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzSysfsNumber"),
        .executableTarget(name: "FuzzScanDecoder", dependencies: ["Motion", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzScanDecoder"),
        .executableTarget(name: "FuzzTraceReader", dependencies: ["Tracing", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzTraceReader"),
        .executableTarget(name: "FuzzShmHeader", dependencies: ["SharedMemory", "LinuxSystem", "FuzzSupport"],
                          path: "Fuzz/Sources/FuzzShmHeader"),
    ]
}

// A member (method, property, initializer) is visible only where its module is imported:
// a use through another module's re-export fails the build instead of hiding a dependency.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
