// The shimmerd executable: everything lives in Commands; this file only hands over argv.
import Commands

ShimmerdMain.main(CommandLine.arguments)
