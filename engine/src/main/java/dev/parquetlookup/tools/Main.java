package dev.parquetlookup.tools;

import dev.parquetlookup.engine.LookupFileException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.FileNotFoundException;
import java.io.PrintWriter;

/**
 * The command line: {@code prepare} rewrites Parquet or CSV into lookup-ready files, {@code
 * inspect} explains a layout and what a lookup will cost, {@code get} looks keys up.
 *
 * <p>Example: {@code java -jar flink-connector-parquet-lookup-<version>.jar inspect
 * /data/customers}. Exit codes: 0 success, 1 the work failed (bad file, I/O error), 2 bad
 * arguments.
 */
@Command(
        name = "parquet-lookup",
        mixinStandardHelpOptions = true,
        version = "parquet-lookup 0.1.0",
        description = "Prepare, inspect and query sorted Parquet files for point lookups.",
        subcommands = {
            PrepareCommand.class,
            InspectCommand.class,
            GetCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {

    @Spec CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(), "Missing command: choose one of prepare, inspect, get.");
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with its error handling; tests set its out and err writers. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setParameterExceptionHandler(Main::badArguments);
        cl.setExecutionExceptionHandler(
                (e, commandLine, parseResult) -> {
                    if (e instanceof ParameterException bad) {
                        // Thrown by a command after parsing: still a bad argument.
                        return badArguments(bad, parseResult.originalArgs().toArray(new String[0]));
                    }
                    PrintWriter err = commandLine.getErr();
                    if (e instanceof FileNotFoundException) {
                        err.println("Error: " + e.getMessage());
                        err.flush();
                        return CommandLine.ExitCode.USAGE;
                    }
                    String message = e.getMessage() != null ? e.getMessage() : e.toString();
                    if (e instanceof LookupFileException || e instanceof IllegalArgumentException) {
                        err.println("Error: " + message);
                    } else {
                        err.println("Error: " + e.getClass().getSimpleName() + ": " + message);
                    }
                    err.flush();
                    return CommandLine.ExitCode.SOFTWARE;
                });
        return cl;
    }

    private static int badArguments(ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println("Error: " + e.getMessage());
        err.println(
                "Run '"
                        + cl.getCommandSpec().qualifiedName()
                        + " --help' for the options and examples.");
        err.flush();
        return CommandLine.ExitCode.USAGE;
    }
}
