import Glibc
import LinuxSystem
import Motion

/// Reads configuration: INI text like systemd's own files (`[Section]`, `key = value`,
/// whole-line comments with `#` or `;`), the default file and its drop-ins, and `--set`.
package enum ConfigurationLoader {
    /// Defaults, then `path` (or the default path when nil; a missing default file is
    /// fine, a missing explicit one is exit 66), then `PATH.d/*.conf` in lexical order,
    /// then each `Section.key=value` override. `base` stands for the defaults (a trace's
    /// recorded card under `replay`'s `--set`).
    package static func load(
        path: String?, overrides: [String], useDefaultPath: Bool = true,
        base: Configuration = Configuration()
    ) throws(Failure) -> Configuration {
        var config = base
        let file = path ?? (useDefaultPath ? Configuration.defaultPath : nil)
        if let file {
            if FileSystem.exists(file) {
                try apply(file: file, to: &config)
            } else if path != nil {
                throw Failure(.noInput, "configuration file \(file) does not exist")
            }
            let dropins = file + ".d"
            if FileSystem.isDirectory(dropins) {
                for name in try dropInNames(dropins) where name.hasSuffix(".conf") {
                    try apply(file: dropins + "/" + name, to: &config)
                }
            }
        }
        for override in overrides {
            try applyOverride(override, to: &config)
        }
        return config
    }

    /// The largest configuration file read (the shipped one, every key commented, is
    /// under 16 KiB).
    package static let maximumFileSize = 1 << 20

    /// Reads and applies one file. A file others may not read (no read bit for others) is
    /// never quoted in an error line: the line names where the error is and what kind it
    /// is, not what the line holds (a root-only file could otherwise be read a line at a
    /// time through the errors of `check-config`).
    static func apply(file: String, to config: inout Configuration) throws(Failure) {
        let bytes: [UInt8]
        let status: FileStatus
        do {
            let (fd, st) =
                try rootsTrust.map { trust in try PathWalk.openFile(file, check: trust) }
                ?? FileSystem.openRegularFile(file)
            bytes = try FileSystem.readRegularFile(fd, status: st, path: file, atMost: maximumFileSize)
            status = st
        } catch let refused as PathWalk.Refused {
            throw Failure(.configuration, "\(refused); refusing it as root")
        } catch {
            throw Failure(.configuration, "cannot read configuration: \(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let (line, offset) = firstInvalidUTF8(bytes)
            throw Failure(
                .configuration, "\(file):\(line): not UTF-8 text (byte \(offset + 1) of the file is not valid UTF-8)")
        }
        try parse(text, file: file, into: &config, quoting: status.permissions & S_IROTH != 0)
    }

    /// The 1-based line and the 0-based byte offset of the first byte of `bytes` that is not
    /// part of valid UTF-8.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> (line: Int, offset: Int) {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: break loop
            case .error(let length): _ = length; break loop
            }
        }
        return (1 + bytes[..<min(offset, bytes.count)].filter { $0 == UInt8(ascii: "\n") }.count, offset)
    }

    /// The names in the drop-in directory; as root, the directory and those above it
    /// checked first (`rootsTrust`): whoever may add a file to it may as well write one.
    static func dropInNames(_ dropins: String) throws(Failure) -> [String] {
        do {
            if let trust = rootsTrust { return try FileSystem.list(try PathWalk.openDirectory(dropins, check: trust)) }
            return try FileSystem.list(dropins)
        } catch let refused as PathWalk.Refused {
            throw Failure(.configuration, "\(refused); refusing it as root")
        } catch {
            throw Failure(.configuration, "cannot read drop-in directory: \(error)")
        }
    }

    /// Running as root, the configuration chooses what root opens, creates and truncates
    /// (devices, `Trace.path`, `Sink.path`): a file, a drop-in, a symbolic link or a
    /// directory on the way to one that another user could change is refused. Each must be owned by root (or the
    /// running user) and writable by neither its group nor others; a directory writable by
    /// others passes when it is sticky (as /tmp: only an entry's owner may replace it, and
    /// the entry is checked itself). Checked by `PathWalk` on the descriptors it reads
    /// from. Nil (nothing to check) when not root: such a process runs with what its own
    /// user may do anyway.
    static var rootsTrust: PathWalk.Check? {
        let me = geteuid()
        guard me == 0 else { return nil }
        return { _, st in
            guard st.ownerUID == 0 || st.ownerUID == me else {
                return "owned by "
                    + (userName(of: st.ownerUID).map { "\($0) (uid \(st.ownerUID))" } ?? "uid \(st.ownerUID)")
                    + ", not by root"
            }
            // A link's mode means nothing (always 0777): only its owner and its directory
            // (checked on the way) can change it.
            if st.kind == .symbolicLink { return nil }
            if st.kind == .directory && st.permissions & S_ISVTX != 0 { return nil }
            let mode = "mode \(String(st.permissions, radix: 8))"
            if st.permissions & S_IWOTH != 0 { return "writable by others (\(mode))" }
            if st.permissions & S_IWGRP != 0 { return "writable by its group (\(mode))" }
            return nil
        }
    }

    /// Parses INI text; errors name `file:line`.
    ///
    /// Lines, comments, brackets and `=` are found among Unicode scalars, not `Character`s:
    /// "\r\n" is one grapheme cluster, so splitting on the `Character` "\n" would read a
    /// CRLF file as one line, and a combining mark after `=` or a space would hide it (both
    /// checked by Fuzz/FuzzConfiguration). CR is trimmed with the other spaces, as systemd does.
    /// `quoting`: errors may quote what the file holds (false for a file others may not read).
    package static func parse(
        _ text: String, file: String, into config: inout Configuration,
        quoting: Bool = true
    ) throws(Failure) {
        /// What an error line shows of the file's text.
        func shown(_ s: String) -> String { quoting ? "\"\(s.abbreviated)\"" : unshown(file) }
        var section: String?
        var lineNumber = 0
        for rawLine in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = Substring(rawLine).trimmingSpaces()
            let first = line.unicodeScalars.first
            if first == nil || first == "#" || first == ";" { continue }
            let at = "\(file):\(lineNumber)"
            if first == "[" {
                guard line.unicodeScalars.last == "]" else {
                    throw Failure(.configuration, "\(at): malformed section header \(shown(line))")
                }
                let name = String(line.unicodeScalars.dropFirst().dropLast()).trimmingSpaces()
                guard let known = ConfigurationKeys.sections.first(where: { $0.lowercased() == name.lowercased() })
                else {
                    throw Failure(
                        .configuration,
                        "\(at): unknown section \(quoting ? "[\(name)]" : unshown(file)); sections are "
                            + ConfigurationKeys.sections.map { "[\($0)]" }.joined(separator: ", "))
                }
                section = known
                continue
            }
            guard let eq = line.unicodeScalars.firstIndex(of: "=") else {
                throw Failure(.configuration, "\(at): expected \"key = value\", got \(shown(line))")
            }
            guard let section else { throw Failure(.configuration, "\(at): \(shown(line)) is outside any [Section]") }
            let key = String(line.unicodeScalars[..<eq]).trimmingSpaces()
            let value = String(line.unicodeScalars[line.unicodeScalars.index(after: eq)...]).trimmingSpaces()
            try set(section: section, key: key, value: value, at: at, into: &config, unquoted: quoting ? nil : file)
        }
    }

    /// Stands for text of `file` an error line does not quote.
    static func unshown(_ file: String) -> String { "(not shown: others may not read \(file))" }

    /// Applies `Section.key=value` from the command line.
    package static func applyOverride(_ override: String, to config: inout Configuration) throws(Failure) {
        let at = "--set \(override.abbreviated)"
        guard let eq = override.firstIndex(of: "="), let dot = override[..<eq].firstIndex(of: ".") else {
            throw Failure(.usage, "\(at): expected Section.key=value")
        }
        let section = String(override[..<dot]).trimmingSpaces()
        let key = String(override[override.index(after: dot)..<eq]).trimmingSpaces()
        let value = String(override[override.index(after: eq)...]).trimmingSpaces()
        try set(section: section, key: key, value: value, at: at, into: &config)
    }

    /// `unquoted`: the file whose text an error line must not quote (nil: quote it).
    static func set(
        section: String, key: String, value: String, at: String, into config: inout Configuration,
        unquoted: String? = nil
    ) throws(Failure) {
        guard let entry = ConfigurationKeys.find(section: section, name: key) else {
            let names = ConfigurationKeys.all.filter { $0.section.lowercased() == section.lowercased() }.map(\.name)
            if let file = unquoted {
                throw Failure(
                    .configuration,
                    "\(at): unknown " + (names.isEmpty ? "section" : "key in [\(section)]")
                        + " \(unshown(file))")
            }
            if names.isEmpty {
                throw Failure(
                    .configuration,
                    "\(at): unknown section [\(section.abbreviated)]; sections are "
                        + ConfigurationKeys.sections.map { "[\($0)]" }.joined(separator: ", "))
            }
            throw Failure(
                .configuration,
                "\(at): unknown key \"\(key.abbreviated)\" in [\(section.abbreviated)]; keys are "
                    + names.joined(separator: ", "))
        }
        if let problem = entry.apply(&config, value) {
            if let file = unquoted {
                // The problem may quote the value (a mount matrix's row and column).
                throw Failure(
                    .configuration,
                    "\(at): \(entry.qualifiedName) = \(unshown(file)) is not a value it accepts "
                        + "(shimmerd check-config --documented lists them)")
            }
            // As in systemd's files, "#" and ";" start a comment only at the start of a line.
            let inline = value.contains(" #") || value.contains(" ;") || value.contains("\t#") || value.contains("\t;")
            throw Failure(
                .configuration,
                "\(at): \(entry.qualifiedName) = \"\(value.abbreviated)\" is \(problem)"
                    + (inline ? "; inline comments are not supported; put the comment on its own line" : ""))
        }
        config.origins[entry.qualifiedName] = at
    }

    /// The effective values in the file's own syntax (`check-config`).
    package static func render(_ config: Configuration) -> String {
        var out = ""
        var section = ""
        for key in ConfigurationKeys.all {
            if key.section != section {
                out += (section.isEmpty ? "" : "\n") + "[\(key.section)]\n"
                section = key.section
            }
            out += "\(key.name) = \(key.show(config))\n"
        }
        return out
    }

    /// The documented default file: every key, its default and one comment line.
    package static func documentedDefaults() -> String {
        let defaults = Configuration()
        var out = """
            # shimmerd configuration (/etc/shimmerd/shimmerd.conf).
            # Every key with its default. Drop-ins in /etc/shimmerd/shimmerd.conf.d/*.conf
            # are read after this file in lexical order; `--set Section.key=value` wins over both.
            # Section and key names are case-insensitive. `shimmerd check-config` validates.

            """
        var section = ""
        for key in ConfigurationKeys.all {
            if key.section != section {
                out += "\n[\(key.section)]\n"
                section = key.section
            }
            out += "# \(key.help)\n#\(key.name) = \(key.show(defaults))\n"
        }
        return out
    }
}
