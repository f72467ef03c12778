extension Double {
    /// A number as a person writes it in a log line or a sysfs value: an integral value
    /// without a fraction ("2", "-1"), any other in Swift's shortest round-trip form ("2.5").
    package var plainText: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
