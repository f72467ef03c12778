import Glibc

/// The name of group `gid` (`getgrgid_r(3)`), nil when it has none.
package func groupName(of gid: gid_t) -> String? {
    withGroup(gid) { $0.gr_name.map { String(cString: $0) } } ?? nil
}

/// Whether the account database makes `user` a member of group `gid`: its primary group
/// (`getpwnam_r(3)`) or listed among the group's members (`getgrgid_r(3)`). A session
/// started before the user was added does not have the group yet (`processHasGroup`).
package func groupListsUser(_ gid: gid_t, user: String) -> Bool {
    var pw = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    if getpwnam_r(user, &pw, &buffer, buffer.count, &result) == 0, result != nil, pw.pw_gid == gid { return true }
    return withGroup(gid) { group in
        var member = group.gr_mem
        while let m = member?.pointee {
            if String(cString: m) == user { return true }
            member = member?.advanced(by: 1)
        }
        return false
    } ?? false
}

/// Whether this process has group `gid`: its effective group or a supplementary one
/// (`getgroups(2)`).
package func processHasGroup(_ gid: gid_t) -> Bool {
    if getegid() == gid { return true }
    let count = getgroups(0, nil)
    guard count > 0 else { return false }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let n = getgroups(count, &groups)
    return n > 0 && groups.prefix(Int(n)).contains(gid)
}

/// `body` on group `gid`'s record, nil when there is none; the buffer grows as
/// `getgrgid_r` asks (ERANGE), for groups with many members.
private func withGroup<T>(_ gid: gid_t, _ body: (group) -> T) -> T? {
    var size = 4096
    while size <= 1 << 20 {
        var gr = group()
        var result: UnsafeMutablePointer<group>?
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        defer { buffer.deallocate() }
        let rc = getgrgid_r(gid, &gr, buffer, size, &result)
        if rc == ERANGE {
            size *= 4
            continue
        }
        guard rc == 0, result != nil else { return nil }
        return body(gr)  // gr's strings point into `buffer`, alive until the return
    }
    return nil
}
