import Testing

@testable import Commands
@testable import Runtime

@Test func daemonPageListsEverySignalAndExitCodeOfTheTables() {
    let page = ManualPage.daemon.text
    for s in DaemonSignals.all {
        #expect(page.contains(".TP\n\\fB\(s.name)\\fR\n" + Roff.escape(s.effect) + "\n"), "\(s.name)")
    }
    for status in ExitStatus.allCases {
        #expect(
            page.contains(
                ".TP\n\\fB\(status.rawValue)\\fR (\(status.sysexitsName))\n" + Roff.escape(status.meaning) + "\n"),
            "\(status)")
    }
    guard case .help(let overview) = try? ShimmerdMain.dispatch(["--help"]) else { Issue.record("no help"); return }
    for status in ExitStatus.allCases {
        #expect(overview.contains("\(status.rawValue)".padding(3) + "  " + status.meaning + "\n"), "\(status)")
    }
}

@Test func daemonPageDescribesEveryOptionWithItsHelp() {
    let page = ManualPage.daemon.text
    for c in ShimmerdMain.commands {
        #expect(page.contains(".SS \"\(Roff.escape(c.name))\"\n\(Roff.escape(c.abstract))\n"), "\(c.name)")
        for o in c.options {
            let tag = Roff.bold(o.name) + (o.value.map { " " + Roff.italic($0) } ?? "")
            #expect(page.contains(".TP\n\(tag)\n\(Roff.escape(o.help))\n"), "\(c.name) \(o.name)")
        }
    }
}

@Test func configurationPageGivesEveryKeyItsDefaultAndAcceptedValues() {
    let page = ManualPage.configuration.text
    let defaults = Configuration()
    for key in ConfigurationKeys.all {
        let shown = key.show(defaults)
        #expect(page.contains(Roff.escape("Accepted: \(key.accepted).")), "\(key.qualifiedName)")
        #expect(page.contains(Roff.escape("Default: \(shown.isEmpty ? "empty" : shown).")), "\(key.qualifiedName)")
        #expect(page.contains(Roff.bold(key.name) + " = "), "\(key.qualifiedName)")
    }
}

@Test func configurationPageExampleIsAValidConfiguration() throws {
    var config = Configuration()
    try ConfigurationLoader.parse(
        ManualPage.exampleLines.joined(separator: "\n") + "\n", file: "shimmerd.conf(5)", into: &config)
    #expect(config.sink.type == .shm)
}

@Test func wordsOfEveryKeyAreValuesOrTheirStart() {
    for key in ConfigurationKeys.all {
        for word in key.words {
            var config = Configuration()
            let accepted = [word, word + "0", word + "x"].contains { key.apply(&config, $0) == nil }
            #expect(accepted, "\(key.qualifiedName): \(word)")
        }
    }
}

@Test(arguments: [
    ("--set", "\\-\\-set"),
    ("a\\b", "a\\eb"),
    ("m/s\u{B2}", "m/s\\[u00B2]"),
    ("\u{1F600}", "\\[u1F600]"),
])
func roffEscapesHyphensBackslashesAndNonASCII(_ text: String, _ escaped: String) {
    #expect(Roff.escape(text) == escaped)
}

@Test func roffGuardsLinesThatWouldBeRequests() {
    var r = Roff()
    r.text(".config is read\n'quoted")
    #expect(r.output == "\\&.config is read\n\\&'quoted\n")
}

@Test func manAndCompletionRefuseUnknownNames() {
    #expect(dispatchFailure(["man", "shimmerd.1"])?.status == .usage)
    #expect(dispatchFailure(["man"])?.status == .usage)
    #expect(dispatchFailure(["completion", "fish"])?.status == .usage)
}
