/// Entry point used by main.swift (being written).
public enum ShimmerdMain {
    public static func main(_ argv: [String]) {}
}
