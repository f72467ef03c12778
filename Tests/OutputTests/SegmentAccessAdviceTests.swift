import Testing

@testable import Output
@testable import SharedMemory

/// The viewer's refusal of a segment its user may not read: the facts, then the one
/// step that fixes it.
@Test(arguments: [
    (0o640, false, false, "alice is not in group shimmerd: sudo usermod -aG shimmerd alice, then log in again"),
    (0o640, true, false, "alice is in group shimmerd, but was added after logging in: log in again"),
    (
        0o640, true, true,
        "alice is in group shimmerd, which may read it, yet access is denied (an ACL or a security module: getfacl /dev/shm/shimmer)"
    ),
    (
        0o600, true, true,
        "only its owner may read it; let the group read it with Sink.mode = 0640 in the daemon's configuration "
            + "([Sink] mode = 0640 in /etc/shimmerd/shimmerd.conf, then systemctl reload shimmerd)"
    ),
    (
        0o600, false, false,
        "only its owner may read it; let the group read it with Sink.mode = 0640 in the daemon's configuration "
            + "([Sink] mode = 0640 in /etc/shimmerd/shimmerd.conf, then systemctl reload shimmerd) and add alice to group "
            + "shimmerd: sudo usermod -aG shimmerd alice, then log in again"
    ),
])
func aSegmentDeniedNamesOwnerGroupModeAndTheFix(_ mode: Int, _ listed: Bool, _ inSession: Bool, _ advice: String) {
    let text = SegmentAccessAdvice(
        path: "/dev/shm/shimmer", owner: "shimmerd", group: "shimmerd", mode: .init(mode),
        user: "alice", listed: listed, inSession: inSession
    ).text
    #expect(
        text
            == "/dev/shm/shimmer: permission denied (owner shimmerd, group shimmerd, mode 0\(String(mode, radix: 8))): "
            + advice)
}
