import Glibc
import LinuxSystem
import Testing

/// A full pipe's writability, seen as the watch's readability by a poll for readable
/// descriptors only.
@Test func aWatchedPipeWakesAReadabilityPollOnceItHasRoom() throws {
    var fds: [Int32] = [0, 0]
    #expect(pipe(&fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    #expect(fcntl(fds[1], F_SETFL, O_NONBLOCK) == 0)
    let watch = try WritabilityWatch()
    #expect(watch.watch(fds[1]) && watch.watched == fds[1])
    #expect(
        ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0) == [watch.fileDescriptor], "empty: room")
    let page = [UInt8](repeating: 1, count: 4096)
    while write(fds[1], page, page.count) > 0 {}
    #expect(errno == EAGAIN)
    #expect(ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0.05) == [], "full: no room")
    var sink = [UInt8](repeating: 0, count: 65536)
    #expect(read(fds[0], &sink, sink.count) > 0)
    let ready = ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 1)
    #expect(watch.isWritable(in: ready), "room again after a read")
    #expect(watch.watch(nil) && watch.watched == nil)
    #expect(!watch.isWritable(in: ready), "nothing watched")
    #expect(ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0.05) == [], "no longer watched")
}

/// The events watched may change on the same descriptor (a bus connection asks for
/// POLLIN, then POLLOUT too while replies wait): the watch follows.
@Test func theWatchedEventsFollowWhatIsAskedFor() throws {
    var fds: [Int32] = [0, 0]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    let watch = try WritabilityWatch()
    #expect(watch.watch(fds[0], events: Int16(POLLIN)))
    #expect(ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0.05) == [], "nothing to read")
    #expect(watch.watch(fds[0], events: Int16(POLLIN | POLLOUT)) && watch.watched == fds[0])
    #expect(
        ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0) == [watch.fileDescriptor], "room to write"
    )
    #expect(watch.watch(fds[0], events: Int16(POLLIN)))
    #expect(ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 0.05) == [], "back to reading only")
    #expect(write(fds[1], "x", 1) == 1)
    #expect(
        ReadinessPoll.waitReadable([watch.fileDescriptor], timeoutSeconds: 1) == [watch.fileDescriptor], "a byte came")
}
