import Glibc
import LinuxSystem
import Testing
import TestSupport

/// `PathWalk` asks about every directory from / down and then the file, each once, on
/// what it opened; a link is resolved first; a refusal names where.
@Test func theWalkChecksEachDirectoryFromTheRootDownAndThenTheFile() throws {
    let scratch = ScratchDirectory("pathwalk")
    defer { scratch.remove() }
    #expect(mkdir(scratch.file("a"), 0o755) == 0 && mkdir(scratch.file("a/b"), 0o755) == 0)
    let file = try scratch.write("text", to: "a/b/f.conf")
    #expect(symlink(file, scratch.file("link.conf")) == 0)
    var asked: [(String, FileStatus.Kind)] = []
    let (fd, st) = try PathWalk.openFile(scratch.file("link.conf")) { path, status in
        asked.append((path, status.kind))
        return nil
    }
    var above = [String]()
    var at = ""
    let real = try #require(realpath(scratch.path, nil))
    defer { free(real) }
    for part in String(cString: real).split(separator: "/") {
        at += "/" + part
        above.append(at)
    }
    #expect(asked.map(\.0) == ["/"] + above + [at + "/a", at + "/a/b", scratch.file("link.conf")])
    #expect(asked.dropLast().allSatisfy { $0.1 == .directory } && asked.last?.1 == .regular)
    #expect(st.size == 4)
    #expect(try FileSystem.readRegularFile(fd, status: st, path: file, atMost: 10) == Array("text".utf8))

    let refused = caught(PathWalk.Refused.self) {
        _ = try PathWalk.openFile(file) { path, _ in path == at + "/a" ? "not this one" : nil }
    }
    #expect(refused?.description == "\(at)/a (on the way to \(file)): not this one")
    let names = try FileSystem.list(try PathWalk.openDirectory(scratch.file("a/b")) { _, _ in nil })
    #expect(names == ["f.conf"])
}
