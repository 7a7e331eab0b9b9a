package dev.parquetlookup.tools;

import dev.parquetlookup.metadata.LookupFileException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.List;

/**
 * The command line: {@code prepare} rewrites Parquet or CSV into lookup-ready files, {@code
 * inspect} explains a layout and what a lookup will cost, {@code get} looks keys up.
 *
 * <p>Example: {@code java -jar flink-connector-parquet-lookup-<version>.jar inspect
 * /data/customers}. Exit codes, the same in every command (see {@link ExitCode}): 0 success, 1 key
 * not found ({@code get}) or files not sorted ({@code inspect}), 2 usage error (bad arguments, a
 * path that does not exist or holds no files), 3 the input cannot be read or the work failed (bad
 * file, bad value, I/O error).
 */
@Command(
        name = "parquet-lookup",
        mixinStandardHelpOptions = true,
        version = "parquet-lookup 0.1.0",
        description = "Prepare, inspect and query sorted Parquet files for point lookups.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:key not found (get), files not sorted (inspect)",
            "2:usage error: bad arguments, a path that does not exist or holds no files",
            "3:input cannot be read or the work failed: bad file, bad value, I/O error"
        },
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
        // The jar bundles SLF4J's API without a binding (Flink provides one); on the command line
        // that would print SLF4J's three-line "no providers" warning on every run.
        if (System.getProperty("slf4j.internal.verbosity") == null) {
            System.setProperty("slf4j.internal.verbosity", "ERROR");
        }
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
                        return error(err, e.getMessage(), ExitCode.USAGE);
                    }
                    LookupFileException.BadSortKey badKey = badSortKey(e);
                    if (badKey != null) {
                        // The fix is a flag (--key): a usage error, whichever command met it.
                        return error(err, inFlagTerms(badKey.getMessage()), ExitCode.USAGE);
                    }
                    String message = e.getMessage() != null ? e.getMessage() : e.toString();
                    boolean ours =
                            e instanceof LookupFileException
                                    || e instanceof IllegalArgumentException;
                    return error(
                            err,
                            (ours ? "" : e.getClass().getSimpleName() + ": ")
                                    + inFlagTerms(message),
                            ExitCode.FAILED);
                });
        return cl;
    }

    /** The sort-key problem behind {@code e}, if any (files are opened on threads). */
    @Nullable
    private static LookupFileException.BadSortKey badSortKey(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof LookupFileException.BadSortKey bad) {
                return bad;
            }
        }
        return null;
    }

    /** Prints {@code Error: message} and returns {@code exitCode}. */
    private static int error(PrintWriter err, String message, int exitCode) {
        err.println("Error: " + message);
        err.flush();
        return exitCode;
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
        return ExitCode.USAGE;
    }

    /** {@code --columns} names only columns of {@code names}, else a usage error listing them. */
    static void requireColumns(CommandSpec spec, List<String> given, Collection<String> names) {
        for (String c : given) {
            if (!names.contains(c)) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--columns names '" + c + "', which is not a column: " + names);
            }
        }
    }

    /**
     * The engine's messages speak of the SQL table's options ({@code 'sort-key'}, {@code 'format' =
     * 'delta'}, the table's {@code 'path'}); on the command line the same settings are the {@code
     * --key} and {@code --format} flags and the PATH argument. A message's own "(command line:
     * ...)" hint is dropped: here it is the message.
     */
    static String inFlagTerms(String message) {
        return message.replaceAll("\\s*\\(command line: [^)]*\\)", "")
                .replaceAll("'format' = '([a-z-]+)'", "--format $1")
                .replace("the table's 'path'", "PATH")
                .replace("the 'sort-key' option", "--key")
                .replace("'sort-key'", "--key")
                .replace("but the table declares", "but --key gives")
                .replace("or remove the option", "or leave --key out");
    }

    /** The exit codes of every command. */
    static final class ExitCode {
        static final int OK = 0;

        /** {@code get}: no row for the key; {@code inspect}: the files are not sorted. */
        static final int NOT_FOUND_OR_NOT_SORTED = 1;

        /**
         * Bad arguments: a flag's value, a path that does not exist, holds no files or is a table
         * read with the wrong --format, a --key that does not fit the files (or none where the
         * files declare no order).
         */
        static final int USAGE = 2;

        /**
         * The input cannot be read or the work failed: a file that is not (whole) Parquet or is
         * damaged, a value that cannot be converted, an I/O error, a full disk.
         */
        static final int FAILED = 3;

        private ExitCode() {}
    }
}
