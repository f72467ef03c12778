import TestSupport
import Testing

@testable import Commands
@testable import Runtime

func dispatchFailure(_ args: [String]) -> Failure? { caught(Failure.self) { _ = try ShimmerdMain.dispatch(args) } }

@Test(arguments: [
    (["render", "--bogus"], "unknown option --bogus"),
    (["render", "--focal", "1,2"], "missing --out"),
    (["render", "--out", "x.png"], "missing --focal"),
    (["render", "--focal", "nan,2", "--out", "x.png"], "finite"),
    (["render", "--focal", "inf,2", "--out", "x.png"], "finite"),
    (["render", "--focal", "1;2", "--out", "x.png"], "not X,Y"),
    (["render", "--focal", "1,2", "--focal", "3,4", "--out", "x.png"], "more than once"),
    (["render", "--focal"], "needs a value"),
    (["frobnicate"], "unknown command \"frobnicate\""),
    (["check-config", "extra"], "unexpected argument"),
    (["--version", "extra"], "--version takes no arguments"),
    (["plot", "t.jsonl"], "missing --out FILE.svg"),
])
func usageErrorsAreExit64NamingTheProblem(_ args: [String], _ mention: String) {
    let f = dispatchFailure(args)
    #expect(f?.status == .usage, "\(args)")
    #expect(f?.message.contains(mention) == true, "\(f?.message ?? "no failure") should mention \(mention)")
}

@Test func helpAndVersion() throws {
    guard case .help(let overview) = try ShimmerdMain.dispatch(["--help"]) else { Issue.record("no help"); return }
    for c in ShimmerdMain.commands { #expect(overview.contains(c.name)) }
    guard case .help(let sub) = try ShimmerdMain.dispatch(["render", "--help"]) else { Issue.record("no help"); return }
    #expect(
        sub.contains("--focal X,Y") && sub.contains("--out FILE.png") && sub.contains("[--set Section.key=value]..."))
    guard case .version = try ShimmerdMain.dispatch(["--version"]) else { Issue.record("no version"); return }
}

@Test func optionsAcceptEqualsAndSpaceForms() throws {
    let a = try ArgumentParser.parse(
        ["--focal=1,2", "--set", "A.b=c", "--set=D.e=f", "--json"],
        options: [OptionSpec("--focal", value: "X,Y", help: ""), .set, .json],
        positionals: [], command: "t")
    #expect(a.value("--focal") == "1,2")
    #expect(a.all("--set") == ["A.b=c", "D.e=f"])
    #expect(a.flag("--json"))
}

@Test func synopsisShowsRequiredOptionsFirstAndWithoutBrackets() {
    #expect(
        Synopsis.of(RenderCommand.self) == " --focal X,Y --out FILE.png [--config PATH] [--set Section.key=value]...")
    #expect(Synopsis.of(PlotCommand.self) == " TRACE.jsonl --out FILE.svg")
    // replay's --out is needed unless --print-size, which writes no frames.
    #expect(
        Synopsis.of(ReplayCommand.self)
            == " TRACE.jsonl [--out PATH] [--from samples|frames] [--at fps|frames] [--print-size] [--set Section.key=value]..."
    )
    #expect(Synopsis.of(RunCommand.self) == " [--config PATH] [--set Section.key=value]... [--duration SECONDS]")
}
