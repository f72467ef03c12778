import Runtime
import Sensors

/// The manual pages shimmerd(8) and shimmerd.conf(5) in man(7) format, generated from the
/// tables that drive everything else: the subcommands' option tables (`ShimmerdMain.commands`,
/// the same ones `--help` prints), `ConfigurationKeys.all` (the parser's key table, which
/// `check-config --documented` prints), `DaemonSignals.all` and `ExitStatus`. A page
/// therefore cannot describe an option, key or code that the program does not have.
/// `shimmerd man PAGE` prints them; the Debian package installs what it printed.
package enum ManualPage: String, CaseIterable, Sendable {
    case daemon = "shimmerd.8"
    case configuration = "shimmerd.conf.5"

    /// The page for `name`: "shimmerd.8" or "shimmerd", as `man` takes them.
    package init?(name: String) {
        guard let page = Self.allCases.first(where: { $0.rawValue == name || $0.name == name }) else { return nil }
        self = page
    }

    /// The page's name without its section: "shimmerd", "shimmerd.conf".
    package var name: String {
        String(rawValue[..<rawValue.lastIndex(of: ".")!])
    }

    package var text: String {
        switch self {
        case .daemon: Self.daemonPage(ShimmerdMain.commands)
        case .configuration: Self.configurationPage()
        }
    }

    /// Files the daemon reads or writes, and where the Debian package installs its own.
    /// Defaults come from the configuration's defaults, not from copies of them.
    static var files: [(path: String, what: String)] {
        let sink = SinkSettings()
        return [
            (
                Configuration.defaultPath,
                "the configuration, see shimmerd.conf(5); a conffile of the package, "
                    + "so local edits survive an upgrade"
            ),
            (Configuration.defaultPath + ".d/*.conf", "drop-ins, read after the file in lexical order"),
            (
                "/dev/iio:deviceN, /sys/bus/iio/devices/iio:deviceN/",
                "the accelerometers and gyroscopes (IIO "
                    + "devices) and their attributes; 60-shimmerd.rules gives group shimmerd access to them"
            ),
            (
                "/dev/dri/card*",
                "the DRM cards of Sink.type = drm (Sink.device; auto is the first with a "
                    + "connected display), group video"
            ),
            (
                SinkFactory.framebufferDevice(sink.device),
                "the framebuffer of Sink.type = "
                    + "framebuffer (Sink.device), group video"
            ),
            (
                "/dev/tty0",
                "the console, put in graphics mode (KD_GRAPHICS) while the drm or framebuffer sink "
                    + "shows the card and given back on exit; group tty"
            ),
            (
                "/dev/input/event*",
                "the kernel's tablet-mode switch (SW_TABLET_MODE): folding a convertible "
                    + "captures a new baseline; 60-shimmerd.rules gives group shimmerd read access to a switch "
                    + "with an input device of its own (switch events only)"
            ),
            (
                "/dev/input/eventN",
                "an input-device accelerometer (lis3lv02d) or a game controller's motion "
                    + "sensors, read through libevdev (see INPUT DEVICES); 60-shimmerd.rules gives group "
                    + "shimmerd read access to input accelerometers' nodes alone, and to an input poller's "
                    + "interval (the input device's poll attribute, set for Sensor.rate and put back on exit)"
            ),
            (
                "/dev/shm/" + sink.name,
                "the shared-memory frames of Sink.type = shm (Sink.name), read by "
                    + "shimmerd view; group shimmerd-view where the daemon may give it to that group, mode Sink.mode"
            ),
            (
                "/var/log/shimmerd/",
                "the service's logs directory (LogsDirectory=), a place for Trace.path; "
                    + "removed when the package is purged"
            ),
            (
                "/usr/lib/systemd/system/shimmerd.service",
                "the systemd unit: Type=notify, user shimmerd; "
                    + "started by udev where an accelerometer appears, not enabled by the package (systemctl "
                    + "enable shimmerd starts it on every boot)"
            ),
            (
                "/usr/lib/udev/rules.d/60-shimmerd.rules",
                "gives group shimmerd the accelerometers' and "
                    + "gyroscopes' device nodes and the IIO attributes buffer mode writes, and starts the "
                    + "service where an accelerometer appears (SYSTEMD_WANTS)"
            ),
            (
                "/usr/share/dbus-1/system.d/org.shimmerd.Shimmerd1.conf",
                "the system bus policy: user shimmerd "
                    + "owns org.shimmerd.Shimmerd1, anyone reads its properties and may call Claim() and "
                    + "Release(), root and group shimmerd-view may call Recalibrate()"
            ),
            ("/usr/share/dbus-1/interfaces/org.shimmerd.Shimmerd1.xml", "the D-Bus interface, as the daemon serves it"),
            (
                "/usr/lib/sysusers.d/shimmerd.conf",
                "the system user and group shimmerd, member of group "
                    + "video, and group shimmerd-view (the people who look at the card: the shm segments are "
                    + "given to it, and it may call Recalibrate())"
            ),
            (
                "/usr/libexec/shimmerd/shimmerd-view",
                "the window of shimmerd view (package shimmerd-view, "
                    + "the only part that links SDL2)"
            ),
            (
                "/usr/lib/systemd/user/shimmerd-view.service",
                "a user unit that shows the card with every "
                    + "graphical session: systemctl --user enable --now shimmerd-view.service"
            ),
            (
                "/usr/lib/systemd/user/shimmerd-background.service",
                "a user unit that makes the card the "
                    + "desktop's background with every graphical session (shimmerd view --background): systemctl "
                    + "--user enable --now shimmerd-background.service"
            ),
        ]
    }

    /// How each desktop starts `shimmerd view --background` with the session: the lines
    /// README.md and docs/BACKGROUND.md give too (test_background.py checks they do).
    static let backgroundStartup: [(desktop: String, file: String, line: String)] = [
        ("sway", "~/.config/sway/config", "exec shimmerd view --background"),
        ("Hyprland", "~/.config/hypr/hyprland.conf", "exec-once = shimmerd view --background"),
        (
            "KDE Plasma", "autostart: its user unit, enabled once",
            "systemctl --user enable --now shimmerd-background.service"
        ),
    ]

    /// How shimmerd shares a sensor with iio-sensor-proxy (the screen rotation of GNOME,
    /// KDE and Phosh) and any other reader: what it finds, what it does.
    static let sharing: [(when: String, does: String)] = [
        (
            "the device is tagged IIO_SENSOR_PROXY_TYPE (iio-sensor-proxy's udev rules) and there is a system bus",
            "polls its raw attributes; never enables, disables or reconfigures its buffer (enable, scan "
                + "elements, length, watermark, trigger): iio-sensor-proxy may read it at any time, through the "
                + "buffer (HID sensor hubs) or raw reads that I2C drivers refuse while a buffer runs"
        ),
        (
            "buffer/enable already reads 1",
            "the buffer is another program's: polls, and leaves the buffer as it is, on exit too"
        ),
        (
            "the device node will not open (EBUSY)",
            "another program has it open (the kernel opens an IIO device node for one program at a time): "
                + "polls, and leaves the buffer as it is"
        ),
        (
            "raw reads fail with EBUSY",
            "another program runs the buffer of a driver that refuses raw reads meanwhile: "
                + "one line, a retry every second"
        ),
        (
            "a udev change event tags the device (iio-sensor-proxy installed) while shimmerd reads its buffer",
            "gives the buffer back at once, with its attributes as they were, and goes on polling"
        ),
        (
            "iio-sensor-proxy appears (" + BufferSharing.sensorProxyBusName + " on the system bus)",
            "one line; a device it may read was polled from the start, its buffer never taken"
        ),
        (
            "the device may be shared",
            "its sampling frequency is only ever raised, never lowered; on exit it is put back only if it "
                + "still holds what shimmerd wrote"
        ),
    ]

    static func daemonPage(_ commands: [any Subcommand.Type]) -> String {
        var r = Roff()
        r.header(title: "SHIMMERD", section: 8, manual: "System Administration")
        r.section("NAME")
        r.text("shimmerd - a tilt-driven gradient card, driven by a real accelerometer")
        r.section("SYNOPSIS")
        for c in commands {
            r.raw(Roff.bold("shimmerd \(c.name)") + Roff.synopsis(c))
            r.raw(".br")
        }
        r.raw(
            Roff.bold("shimmerd --help") + " | " + Roff.bold("shimmerd") + " " + Roff.italic("COMMAND") + " "
                + Roff.bold("--help")
                + " | " + Roff.bold("shimmerd --version"))
        r.section("DESCRIPTION")
        r.text(
            """
            shimmerd draws a card of 175 gradient dots whose shimmer follows the tilt of the machine: \
            it reads an IIO accelerometer (or an input device's: see INPUT DEVICES), computes the tilt (dPitch, dRoll) against a baseline, maps it \
            to a focal point, colors the card's dots from it and writes the frames to a sink: a \
            display through DRM/KMS, the framebuffer, POSIX shared memory, a raw frame stream, PNG \
            files or nothing.
            """)
        r.paragraph()
        r.text(
            """
            The first command, \(commands[0].name), is the default: shimmerd with no command is the daemon. \
            As a system service it runs as the unprivileged user shimmerd (shimmerd.service, Type=notify: \
            READY=1 once the first frame is out, WATCHDOG=1 from the render loop). Log lines go to \
            standard error with sd-daemon priority prefixes when it is the journal's stream.
            """)
        r.section("COMMANDS")
        for c in commands {
            r.subsection(c.name)
            r.text(c.abstract)
            for p in c.positionals {
                r.tagged(Roff.italic(p.name), p.help)
            }
            for o in c.options {
                let tag = Roff.bold(o.name) + (o.value.map { " " + Roff.italic($0) } ?? "")
                r.tagged(tag, o.help)
            }
            r.tagged(Roff.bold("--help"), "show the command's options")
        }
        r.section("OPTIONS")
        r.text("These work without a command:")
        r.tagged(Roff.bold("--help"), "list the commands (also -h and help; help COMMAND shows a command's options)")
        r.tagged(Roff.bold("--version"), "print the version")
        r.paragraph()
        r.text(
            """
            An option's value follows it as the next argument or after "=" (--out=FILE). "--" ends \
            the options. --set may be given more than once; the last value of a key wins.
            """)
        r.section("SHARING THE SENSOR")
        r.text(
            """
            Every GNOME, KDE and Phosh install has iio-sensor-proxy, which reads the same \
            accelerometer to rotate the screen. Each reason is said in the log line that names the mode.
            """)
        for s in sharing {
            r.tagged(Roff.italic(s.when), s.does)
        }
        inputDevices(&r)
        r.section("DESKTOP BACKGROUND")
        r.text(
            """
            shimmerd view --background shows the card on the desktop itself, on every output, from the \
            frames of Sink.type = shm: a wlr-layer-shell surface on the bottom layer (above the wallpaper \
            of swaybg and the compositor's own, under every window and panel), which takes no input. It \
            claims the frames only while some output shows it: on a compositor that stops a covered \
            surface's frame callbacks, as sway does, a fullscreen window on every output lets the daemon \
            idle. Desktops without wlr-layer-shell (GNOME, weston) get one line and exit 69: use \
            shimmerd view there. Start it with the session:
            """)
        for s in backgroundStartup {
            r.tagged(Roff.italic(s.desktop) + " (\(s.file))", s.line)
        }
        r.section("D-BUS INTERFACE")
        r.text(
            """
            shimmerd run owns \(StatusBus.name) on the system bus, with the object \(StatusBus.path) \
            and its interface \(StatusBus.interface): the methods below, and read-only properties that \
            change with the daemon, signalled by PropertiesChanged at most ten times a second. A claim \
            belongs to the caller's bus connection and ends with Release() or when that connection \
            closes. shimmerd monitor --dbus shows the properties; without a system bus the daemon says \
            so once and runs without it, and a bus that goes away later is connected to again.
            """)
        for m in StatusBus.methods {
            r.tagged(Roff.bold(m.name + "()"), m.doc)
        }
        for p in StatusBus.properties {
            r.tagged(Roff.bold(p.name) + " (\(p.type))", p.doc)
        }
        r.section("SIGNALS")
        r.text("shimmerd run acts on these signals:")
        for s in DaemonSignals.all {
            r.tagged(Roff.bold(s.name), s.effect)
        }
        r.section("EXIT STATUS")
        r.text(
            "The codes of sysexits.h. Every other code than 0 comes with one line on standard error "
                + "saying what is wrong and where.")
        for status in ExitStatus.allCases {
            r.tagged(Roff.bold(String(status.rawValue)) + " (\(status.sysexitsName))", status.meaning)
        }
        r.section("ENVIRONMENT")
        r.tagged(
            Roff.bold("NOTIFY_SOCKET") + ", " + Roff.bold("WATCHDOG_USEC"),
            "set by systemd for a Type=notify service: shimmerd reports readiness, status and the "
                + "watchdog heartbeat there (sd_notify(3))")
        r.tagged(
            Roff.bold("JOURNAL_STREAM"),
            "set by systemd when standard error is the journal: log lines then carry "
                + "sd-daemon priority prefixes such as <4>")
        r.tagged(
            Roff.bold("DBUS_SYSTEM_BUS_ADDRESS"),
            "the system bus (default unix:path=/run/dbus/system_bus_socket): where shimmerd offers "
                + "\(StatusBus.name) and watches iio-sensor-proxy")
        r.tagged(Roff.bold("SDL_VIDEODRIVER"), "for shimmerd view: the SDL2 video driver (x11 or wayland)")
        r.tagged(
            Roff.bold("WAYLAND_DISPLAY") + ", " + Roff.bold("XDG_RUNTIME_DIR"),
            "for shimmerd view --background: the compositor's socket (a name in XDG_RUNTIME_DIR, "
                + "or a path; wayland-0 when unset)")
        r.section("FILES")
        for f in files {
            r.tagged(Roff.italic(f.path), f.what)
        }
        r.section("EXAMPLES")
        r.text("Check the configuration, then show the effective values:")
        r.example(["shimmerd check-config"])
        r.text("Record what the accelerometer reports, then draw it:")
        r.example([
            "shimmerd run --set Sink.type=null --set Trace.path=/tmp/t.jsonl --duration 10",
            "shimmerd plot /tmp/t.jsonl --out t.svg",
        ])
        r.text(
            """
            Record a video with ffmpeg. Frames come only while the card changes, so ffmpeg stamps \
            each with the time it arrives; the pad gives H.264 the even height it wants:
            """)
        r.example(ffmpegRecipe)
        r.section("SEE ALSO")
        // Only pages the packages shimmerd depends on install (systemd, udev): Debian 12's
        // iio-sensor-proxy has no manual pages, sd_notify(3) is in libsystemd-dev.
        r.raw(Roff.seeAlso(seeAlso))
        r.paragraph()
        r.text(
            """
            /usr/share/doc/shimmerd/README.md and the other documents in /usr/share/doc/shimmerd. \
            iio-sensor-proxy and its monitor-sensor (Debian package iio-sensor-proxy), which shimmerd \
            shares the accelerometer with.
            """)
        return r.output
    }

    /// Input-device accelerometers and game controllers; the tables listed are the ones
    /// the program reads.
    static func inputDevices(_ r: inout Roff) {
        r.section("INPUT DEVICES")
        r.text(
            """
            Accelerometers the kernel exposes as input devices (udev ID_INPUT_ACCELEROMETER) are read \
            through libevdev: Sensor.device = input:eventN names one, name:NAME matches its name. auto \
            takes one where no IIO accelerometer is usable, never a game controller's motion sensors \
            (a joystick beside it under the same parent), and a built-in one before one that is virtual \
            (under /sys/devices/virtual, as uinput's are) or on the USB or Bluetooth bus, then the lowest \
            event number; shimmerd sensors says why. The node is drained once a frame, whatever the \
            device's rate, at most twice the kernel's buffer of events a read; the device's own sample \
            times (MSC_TIMESTAMP) place its readings while they fit the times the reports arrived, else \
            the arrival times do; a device that sends nothing keeps its last values (the input core sends \
            changes only); after the kernel dropped events (SYN_DROPPED) the device's state is read again \
            and the fusion starts over from it; a node that goes away is one log line, and the daemon waits.
            """)
        r.tagged(
            Roff.italic("units"),
            """
            from the axes' resolution where the driver sets INPUT_PROP_ACCELEROMETER (counts per g; \
            ABS_RX/RY/RZ, the gyroscope, counts per degree per second), else by the device's name: \
            \(InputUnits.table.map { "\($0.name), \(Int($0.countsPerG)) counts per g" }.joined(separator: "; "))
            """)
        r.tagged(
            Roff.italic("frame"),
            """
            Sensor.mount_matrix, else udev ACCEL_MOUNT_MATRIX, else for a game controller a table by \
            vendor:product of how its axes lie under a screen held like it (face up, the shoulder \
            buttons at the top edge): \(ControllerAxes.table.map { "\($0.key) \($0.model)" }.joined(separator: ", "))
            """)
        r.tagged(
            Roff.italic("rate"),
            "a polled one (an input poller, lis3lv02d) takes "
                + "Sensor.rate through its poll interval")
    }

    static func configurationPage() -> String {
        let defaults = Configuration()
        var r = Roff()
        r.header(title: "SHIMMERD.CONF", section: 5, manual: "File Formats")
        r.section("NAME")
        r.text("shimmerd.conf - configuration of the shimmerd daemon")
        r.section("SYNOPSIS")
        r.raw(Roff.italic(Configuration.defaultPath))
        r.raw(".br")
        r.raw(Roff.italic(Configuration.defaultPath + ".d/*.conf"))
        r.section("DESCRIPTION")
        r.text(
            """
            An INI file like systemd's own: [Section] lines, key = value lines, whole-line comments \
            that start with # or ;. Section and key names are case-insensitive. shimmerd reads the \
            built-in defaults, then \(Configuration.defaultPath) (or the file of --config), then the \
            drop-ins in \(Configuration.defaultPath).d/*.conf in lexical order, then each --set \
            Section.key=value of the command line; a later value wins.
            """)
        r.paragraph()
        r.text(
            """
            An unknown section or key, or a value of the wrong type or out of range, is an error that \
            names file:line, the key and the accepted values; shimmerd then exits 78. Comments are whole \
            lines: "rate = 30 # thirty" is an error. Numbers are decimal. \
            shimmerd check-config validates the files, makes the checks shimmerd run makes at start and \
            on SIGHUP (the card's size in pixels, the files Trace.path and Sensor.device = trace:FILE \
            name) without creating anything, and prints the effective values; shimmerd \
            check-config --documented prints every key with its default, as the shipped file lists them. \
            shimmerd run re-reads the files on SIGHUP (systemctl reload shimmerd).
            """)
        var section = ""
        for key in ConfigurationKeys.all {
            if key.section != section {
                section = key.section
                r.section("[\(section)] SECTION")
            }
            r.tagged(
                Roff.bold(key.name) + " = " + Roff.italic(key.show(defaults).isEmpty ? "(empty)" : key.show(defaults)),
                key.help)
            r.raw(".br")
            r.text("Accepted: \(key.accepted).")
            r.raw(".br")
            r.text("Default: \(key.show(defaults).isEmpty ? "empty" : key.show(defaults)).")
        }
        r.section("EXAMPLE")
        r.text("A kiosk that shares the card with a viewer and keeps a rotated trace:")
        r.example(exampleLines)
        r.section("SEE ALSO")
        r.raw(Roff.seeAlso([("shimmerd", 8), ("systemd.unit", 5)]))
        return r.output
    }

    /// The pages shimmerd(8) sends the reader to.
    static let seeAlso = [
        ("shimmerd.conf", 5), ("systemctl", 1), ("journalctl", 1), ("systemd.service", 5),
        ("sysusers.d", 5), ("udev", 7), ("busctl", 1),
    ]

    /// A real-time recording of the raw sink, the command README.md gives on one line (a
    /// test runs it), continued with a backslash to fit the page.
    static let ffmpegRecipe = [
        "shimmerd run --set Sink.type=raw | ffmpeg -use_wallclock_as_timestamps 1 \\",
        "    -f rawvideo -pix_fmt bgr0 -s 700x467 -i - -fps_mode vfr -vf pad=700:468 "
            + "-c:v libx264 -pix_fmt yuv420p out.mp4",
    ]

    /// The example of shimmerd.conf(5); a test loads it with the configuration parser.
    static let exampleLines = [
        "[Sensor]", "device = auto", "", "[Sink]", "type = shm", "name = shimmer", "fps = 60", "",
        "[Trace]", "path = /var/log/shimmerd/trace.jsonl", "max_size = 64M",
    ]
}

/// man(7) source, with every text escaped: hyphens as \-, backslashes as \e, characters
/// beyond ASCII as \[uXXXX], and a line that would start with a control character guarded.
struct Roff {
    private(set) var output = ""

    mutating func raw(_ line: String) { output += line + "\n" }

    mutating func header(title: String, section: Int, manual: String) {
        raw(".\\\" Generated by `shimmerd man`: edit the tables in Sources/, not this page.")
        raw(".TH \(title) \(section) \"\" \"shimmerd \(ShimmerdMain.version)\" \"\(manual)\"")
        raw(".nh")
        raw(".ad l")
    }

    mutating func section(_ name: String) { raw(".SH \"\(name)\"") }
    mutating func subsection(_ name: String) { raw(".SS \"\(Self.escape(name))\"") }
    mutating func paragraph() { raw(".PP") }

    /// Running text, one line per source line; an empty line is a paragraph break.
    mutating func text(_ s: String) {
        for line in s.split(separator: "\n", omittingEmptySubsequences: false) {
            raw(line.isEmpty ? ".PP" : Self.guardLine(Self.escape(String(line))))
        }
    }

    /// A tagged paragraph: `tag` (already formatted) and its text.
    mutating func tagged(_ tag: String, _ body: String) {
        raw(".TP")
        raw(Self.guardLine(tag))
        text(body)
    }

    /// Literal lines, indented, in a fixed-width font, not filled.
    mutating func example(_ lines: [String]) {
        raw(".PP")
        raw(".RS 4")
        raw(".nf")
        for line in lines { raw(line.isEmpty ? "\\&" : Self.guardLine(Self.escape(line))) }
        raw(".fi")
        raw(".RE")
        raw(".PP")
    }

    static func bold(_ s: String) -> String { "\\fB" + escape(s) + "\\fR" }
    static func italic(_ s: String) -> String { "\\fI" + escape(s) + "\\fR" }

    /// " [--config PATH] [--set Section.key=value]..." with fonts.
    static func synopsis(_ c: any Subcommand.Type) -> String {
        Synopsis.of(c, literal: bold, placeholder: italic)
    }

    static func seeAlso(_ pages: [(String, Int)]) -> String {
        pages.map { bold($0.0) + "(\($0.1))" }.joined(separator: ", ")
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case _ where u.value < 0x80: out.unicodeScalars.append(u)
            default: out += "\\[u" + hex4(u.value) + "]"
            }
        }
        return out
    }

    static func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    /// `\&` before a leading "." or "'", which roff would read as a request.
    static func guardLine(_ s: String) -> String {
        s.hasPrefix(".") || s.hasPrefix("'") ? "\\&" + s : s
    }
}
