import Foundation
import Testing

@testable import Runtime

/// The interface the package installs in /usr/share/dbus-1/interfaces is the one the
/// daemon serves (`StatusBus.interfaceXML`, from the same property table).
@Test func shippedInterfaceMatchesTheServedOne() throws {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../dbus/org.shimmerd.Shimmerd1.xml").standardized.path
    let shipped = try String(contentsOfFile: path, encoding: .utf8)
    #expect(shipped == StatusBus.introspectionFile)
}

/// Every property in the table has a D-Bus type the bus object can send.
@Test func propertyTypesAreSendable() {
    for p in StatusBus.properties {
        #expect(["s", "d", "t", "u", "b", "(dd)"].contains(p.type), "\(p.name): \(p.type)")
    }
}
