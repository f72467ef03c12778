import Testing

@testable import Commands
@testable import Runtime

/// `shimmerd view`'s command line (the window itself is tested end to end in
/// Tests/IntegrationTests/sinks/test_viewer.py).
struct ViewCommandTests {
    func view(_ args: [String]) throws -> ViewCommand? {
        guard case .command(let c) = try ShimmerdMain.dispatch(["view"] + args) else { return nil }
        return c as? ViewCommand
    }

    @Test func nameDefaultsToTheSinkDefault() throws {
        #expect(try view([])?.path == "/dev/shm/shimmer")
        #expect(try view(["--name", "card2"])?.path == "/dev/shm/card2")
        #expect(try view(["--name=card3"])?.name == "card3")
    }

    @Test(arguments: [
        (["--name", "a/b"], "is not a segment name"),
        (["--name", ".."], "is not a segment name"),
        (["--name", ""], "is not a segment name"),
        (["--name"], "needs a value"),
        (["--bogus"], "unknown option --bogus"),
        (["extra"], "unexpected argument"),
        (["--fill", "#102030"], "give --background too"),
        (["--background", "--fill", "102030"], "is not a colour #RRGGBB"),
        (["--background", "--fill", "#1020"], "is not a colour #RRGGBB"),
        (["--background", "--fill", "#10203g"], "is not a colour #RRGGBB"),
        (["--background", "--fill=#1020304"], "is not a colour #RRGGBB"),
    ])
    func usageErrors(_ args: [String], _ mention: String) {
        let f = dispatchFailure(["view"] + args)
        #expect(f?.status == .usage, "\(args)")
        #expect(f?.message.contains(mention) == true, "\(f?.message ?? "no failure") should mention \(mention)")
    }

    @Test func theBackgroundAndItsFillGoToTheViewer() throws {
        #expect(try view([])?.viewerArguments == ["--name", "shimmer"])
        #expect(try view(["--background"])?.viewerArguments == ["--name", "shimmer", "--background"])
        #expect(
            try view(["--name", "c", "--background", "--fill", "#A0b1C2"])?.viewerArguments
                == ["--name", "c", "--background", "--fill", "#A0b1C2"])
    }

    @Test func helpListsIt() throws {
        guard case .help(let text) = try ShimmerdMain.dispatch(["view", "--help"]) else {
            Issue.record("no help"); return
        }
        #expect(text.contains("Usage: shimmerd view [--name NAME] [--background] [--fill #RRGGBB]"))
    }

    @Test func theViewerIsLookedForBesideThisExecutableThenInLibexec() {
        #expect(
            ViewCommand.viewerCandidates(directory: "/usr/bin")
                == ["/usr/bin/shimmerd-view", "/usr/libexec/shimmerd/shimmerd-view"])
        #expect(
            ViewCommand.viewerCandidates(directory: "/usr/local/bin")
                == ["/usr/local/bin/shimmerd-view", "/usr/local/libexec/shimmerd/shimmerd-view"])
    }

    /// A missing viewer: where the package puts it, and from a source build how to build it.
    @Test func aMissingViewerSaysWhereItIsInstalledAndHowToBuildIt() {
        let installed = ViewCommand.missingViewer(
            directory: "/usr/bin", tried: ViewCommand.viewerCandidates(directory: "/usr/bin"))
        #expect(installed.contains("tried /usr/bin/shimmerd-view, /usr/libexec/shimmerd/shimmerd-view"))
        #expect(installed.contains("the Debian package shimmerd-view puts it in /usr/libexec/shimmerd/shimmerd-view"))
        #expect(!installed.contains("swift build"))
        let built = ViewCommand.missingViewer(
            directory: "/src/shimmerd/.build/x86_64-unknown-linux-gnu/debug", tried: [])
        #expect(
            built.contains(
                "swift build --product shimmerd-view builds it in /src/shimmerd/.build/x86_64-unknown-linux-gnu/debug"))
    }

    /// Only SwiftPM's own output directories count as a source build, not an installed
    /// binary that happens to lie somewhere below a `.build` directory.
    @Test(arguments: [
        ("/src/shimmerd/.build/debug", true), ("/src/shimmerd/.build/release", true),
        ("/src/shimmerd/.build/x86_64-unknown-linux-gnu/release", true), ("/usr/bin", false),
        ("/src/shimmerd/.build/test-run/pytest/t0/usr/bin", false), (".build/debug/tools", false),
    ])
    func aSourceBuildIsSwiftPMsOutputDirectory(directory: String, built: Bool) {
        #expect(ViewCommand.isSwiftPMBuildDirectory(directory) == built)
    }
}
