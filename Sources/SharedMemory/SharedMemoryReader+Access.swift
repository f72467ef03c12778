import Glibc
import LinuxSystem

/// Why this user may not read a segment, and what fixes it: a viewer that only said
/// `open /dev/shm/NAME: Permission denied` left the user to find the owner, the group,
/// the mode and the command. Pure, so tests pin every case's wording.
package struct SegmentAccessAdvice: Equatable {
    package var path: String
    package var owner: String
    /// The segment's group, by name (or its number, which usermod takes too).
    package var group: String
    package var mode: mode_t
    /// This process's user.
    package var user: String
    /// The account database makes `user` a member of `group`.
    package var listed: Bool
    /// This process has `group` (a session started before `usermod` does not).
    package var inSession: Bool

    package var text: String {
        let facts = "\(path): permission denied (owner \(owner), group \(group), mode 0\(String(mode, radix: 8)))"
        let join = "sudo usermod -aG \(group) \(user), then log in again"
        if mode & 0o040 == 0 {
            return facts + ": only its owner may read it; let the group read it with Sink.mode = 0640 in the "
                + "daemon's configuration ([Sink] mode = 0640 in /etc/shimmerd/shimmerd.conf, "
                + "then systemctl reload shimmerd)"
                + (listed ? "" : " and add \(user) to group \(group): \(join)")
        }
        if !listed {
            return facts + ": \(user) is not in group \(group): \(join)"
        }
        if !inSession {
            return facts + ": \(user) is in group \(group), but was added after logging in: log in again"
        }
        return facts + ": \(user) is in group \(group), which may read it, yet access is denied "
            + "(an ACL or a security module: getfacl \(path))"
    }
}

extension SharedMemoryReader {
    /// The refusal of a segment open(2) gave EACCES for, from the file's facts.
    static func permissionDenied(_ path: String) -> String {
        guard let st = try? FileStatus.of(path, followLinks: false) else { return "\(path): permission denied" }
        let uid = effectiveUserID()
        let user = userName(of: uid) ?? "\(uid)"
        return SegmentAccessAdvice(
            path: path, owner: userName(of: st.ownerUID) ?? "uid \(st.ownerUID)",
            group: groupName(of: st.groupID) ?? "\(st.groupID)", mode: st.permissions, user: user,
            listed: groupListsUser(st.groupID, user: user), inSession: processHasGroup(st.groupID)
        ).text
    }
}
