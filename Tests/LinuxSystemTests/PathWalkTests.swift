import Glibc
import LinuxSystem
import TestSupport
import Testing

/// `PathWalk` asks about every directory from / down and then the file, on what it
/// opened; a link is asked about itself where it is met, then its target is walked (an
/// absolute one from / again); a refusal names where.
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
    for part in scratch.path.split(separator: "/") {
        at += "/" + part
        above.append(at)
    }
    let link = scratch.file("link.conf")
    #expect(asked.map(\.0) == ["/"] + above + [link] + above + [at + "/a", at + "/a/b", link])
    #expect(
        asked.map(\.1) == [.directory] + above.map { _ in .directory } + [.symbolicLink]
            + above.map { _ in .directory } + [.directory, .directory, .regular])
    #expect(st.size == 4)
    #expect(try FileSystem.readRegularFile(fd, status: st, path: file, atMost: 10) == Array("text".utf8))

    let refused = caught(PathWalk.Refused.self) {
        _ = try PathWalk.openFile(file) { path, _ in path == at + "/a" ? "not this one" : nil }
    }
    #expect(refused?.description == "\(at)/a (on the way to \(file)): not this one")
    let names = try FileSystem.list(try PathWalk.openDirectory(scratch.file("a/b")) { _, _ in nil })
    #expect(names == ["f.conf"])
}

/// A link is refused by what its own status says (its owner), whatever it points at: the
/// refusal names the link. A link to a directory and a relative link with `..` are walked
/// as the kernel would; a loop of links ends in ELOOP.
@Test func linksAreJudgedWhereTheyAreAndWalkedAsTheKernelWould() throws {
    let scratch = ScratchDirectory("pathwalk-links")
    defer { scratch.remove() }
    #expect(mkdir(scratch.file("a"), 0o755) == 0 && mkdir(scratch.file("a/b"), 0o755) == 0)
    _ = try scratch.write("text", to: "a/b/f.conf")
    #expect(symlink("../../a/b/f.conf", scratch.file("a/b/up.conf")) == 0)
    #expect(symlink("a/b", scratch.file("dir")) == 0)
    #expect(symlink("l2", scratch.file("l1")) == 0 && symlink("l1", scratch.file("l2")) == 0)

    let refused = caught(PathWalk.Refused.self) {
        _ = try PathWalk.openFile(scratch.file("a/b/up.conf")) { _, st in
            st.kind == .symbolicLink ? "a link's verdict" : nil
        }
    }
    #expect(refused?.description == "\(scratch.file("a/b/up.conf")): a link's verdict")
    let throughDirectory = caught(PathWalk.Refused.self) {
        _ = try PathWalk.openFile(scratch.file("dir/f.conf")) { _, st in st.kind == .symbolicLink ? "linked" : nil }
    }
    #expect(
        throughDirectory?.description == "\(scratch.file("dir")) (on the way to \(scratch.file("dir/f.conf"))): linked")

    var asked: [String] = []
    let (fd, st) = try PathWalk.openFile(scratch.file("a/b/up.conf")) { path, _ in
        asked.append(path)
        return nil
    }
    #expect(try FileSystem.readRegularFile(fd, status: st, path: "up.conf", atMost: 10) == Array("text".utf8))
    #expect(
        asked.suffix(4) == [
            scratch.file("a/b/up.conf"), scratch.file("a"), scratch.file("a/b"), scratch.file("a/b/up.conf"),
        ])
    let names = try FileSystem.list(try PathWalk.openDirectory(scratch.file("dir")) { _, _ in nil })
    #expect(names.sorted() == ["f.conf", "up.conf"])
    // `..` after a link is the parent of where the link led (a/b/.. is a), as for the kernel.
    let (parentOfTarget, _) = try PathWalk.openFile(scratch.file("dir/../b/./f.conf")) { _, _ in nil }
    #expect(try parentOfTarget.status().size == 4)

    let loop = caught(SystemError.self) { _ = try PathWalk.openFile(scratch.file("l1")) { _, _ in nil } }
    #expect(loop?.errno == ELOOP)
}
