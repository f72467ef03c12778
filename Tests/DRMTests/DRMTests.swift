import CDRM
import Glibc
import TestSupport
import Testing

@testable import DRM

// No DRM card is needed: modes are the kernel's struct filled in here, DRMCall's error
// mapping is given failing calls, and the card calls run against a real descriptor that
// is no DRM device (/dev/null answers every DRM ioctl with ENOTTY).

/// A mode as the kernel reports one (`struct drm_mode_modeinfo`).
private func modeInfo(_ width: UInt16, _ height: UInt16, _ hertz: UInt32, type: Int32, name: String) -> drmModeModeInfo
{
    var m = drmModeModeInfo()
    m.hdisplay = width
    m.vdisplay = height
    m.vrefresh = hertz
    m.type = UInt32(type)
    withUnsafeMutableBytes(of: &m.name) { bytes in
        for (i, byte) in name.utf8.prefix(bytes.count).enumerated() { bytes[i] = byte }
    }
    return m
}

@Test func aModeReadsItsSizeRefreshNameAndPreference() {
    let preferred = DRMMode(
        modeInfo(1920, 1080, 60, type: DRM_MODE_TYPE_PREFERRED | DRM_MODE_TYPE_DRIVER, name: "1920x1080"))
    #expect(preferred.width == 1920 && preferred.height == 1080 && preferred.refreshHz == 60)
    #expect(preferred.isPreferred)
    #expect(preferred.name == "1920x1080")
    #expect(preferred.description == "1920x1080@60")

    let other = DRMMode(modeInfo(1280, 720, 50, type: DRM_MODE_TYPE_DRIVER, name: "1280x720"))
    #expect(!other.isPreferred)
    #expect(other.description == "1280x720@50")
}

@Test func aModeNameFillingTheWholeFieldIsReadToItsEnd() {
    // DRM_DISPLAY_MODE_LEN bytes with no terminating NUL.
    let long = String(repeating: "m", count: Int(DRM_DISPLAY_MODE_LEN))
    #expect(DRMMode(modeInfo(800, 600, 75, type: 0, name: long)).name == long)
}

@Test func aCallSettingErrnoFailsWithItsOperationDeviceAndErrno() {
    let e = caught(DRMError.self) {
        try DRMCall.check("drmSetMaster", "/dev/dri/card0") {
            errno = EBUSY; return -1
        }
    }
    #expect(e?.operation == "drmSetMaster" && e?.device == "/dev/dri/card0" && e?.code == EBUSY)
    #expect(e?.isMasterConflict == true)
    #expect(e?.description == "drmSetMaster /dev/dri/card0: \(String(cString: strerror(EBUSY))) (EBUSY)")
}

@Test func aNegativeErrnoWithoutErrnoIsTheCode() {
    // The DRM_IOCTL macro calls return -errno.
    let e = caught(DRMError.self) { _ = try DRMCall.value("drmModePageFlip 41", "/dev/dri/card1") { -EINVAL } }
    #expect(e?.code == EINVAL)
    #expect(e?.isMasterConflict == false)
    #expect(e?.description == "drmModePageFlip 41 /dev/dri/card1: \(String(cString: strerror(EINVAL))) (EINVAL)")
    #expect(DRMError(operation: "open", device: "d", code: EXDEV).codeName == "errno \(EXDEV)")
}

@Test func anInterruptedCallIsRetried() throws {
    var calls = 0
    let r = try DRMCall.value("drmGetCap", "/dev/dri/card0") { () -> Int32 in
        calls += 1
        if calls == 1 { errno = EINTR; return -1 }
        return 7
    }
    #expect(r == 7 && calls == 2)
    var lookups = 0
    let p = try DRMCall.pointer("drmModeGetResources", "/dev/dri/card0") { () -> Int? in
        lookups += 1
        if lookups < 3 { errno = EINTR; return nil }
        return 5
    }
    #expect(p == 5 && lookups == 3)
}

@Test func aGetterReturningNullWithoutErrnoIsNotFound() {
    let e = caught(DRMError.self) { _ = try DRMCall.pointer("drmModeGetConnector 77", "/dev/dri/card0") { Int?.none } }
    #expect(e?.code == ENOENT && e?.codeName == "ENOENT")
}

@Test func aMissingCardFailsToOpenNamingThePath() throws {
    let scratch = ScratchDirectory("drm")
    defer { scratch.remove() }
    let path = scratch.file("card0")
    let e = try #require(caught(DRMError.self) { _ = try DRMCard(path: path) })
    #expect(e.operation == "open" && e.device == path && e.code == ENOENT)
    #expect(e.description == "open \(path): \(String(cString: strerror(ENOENT))) (ENOENT)")
}

@Test func aDeviceThatIsNoCardRefusesEveryDRMCallWithENOTTY() throws {
    let card = try DRMCard(path: "/dev/null")
    #expect(card.fileDescriptor >= 0)
    let master = try #require(caught(DRMError.self) { try card.becomeMaster() })
    #expect(master.operation == "drmSetMaster" && master.device == "/dev/null" && master.code == ENOTTY)
    #expect(master.codeName == "ENOTTY")
    #expect(!master.isMasterConflict)
    let cap = try #require(caught(DRMError.self) { _ = try card.supportsDumbBuffers() })
    #expect(cap.operation == "drmGetCap \(DRM_CAP_DUMB_BUFFER)" && cap.code == ENOTTY)
    let resources = try #require(caught(DRMError.self) { _ = try card.resources() })
    #expect(resources.operation == "drmModeGetResources" && resources.code == ENOTTY)
    let connector = try #require(caught(DRMError.self) { _ = try card.connector(31) })
    #expect(connector.operation == "drmModeGetConnector 31" && connector.device == "/dev/null")
}
