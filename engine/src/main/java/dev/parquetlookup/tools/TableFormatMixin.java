package dev.parquetlookup.tools;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.SnapshotSource.Listing;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --format files|delta|iceberg}: whether PATH is a directory of Parquet files or a table
 * root of a format found on the class path ({@link TableFormat}, as SQL's {@code format} option).
 */
final class TableFormatMixin {

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description =
                    "What PATH is: 'files' (default: a Parquet file or a directory of them),"
                            + " 'delta' or 'iceberg' (the root of a Delta Lake or Iceberg table:"
                            + " its current version is read, deleted rows left out, and the"
                            + " version is printed). The SQL jar includes the table formats;"
                            + " with Maven, add the parquet-lookup-formats artifact.")
    String format = TableFormat.FILES;

    /** The format's name in lower case, checked: unknown names are a usage error (2). */
    String name(CommandSpec spec) {
        String f = format.trim().toLowerCase(Locale.ROOT);
        if (!f.equals(TableFormat.FILES)) {
            try {
                TableFormat.find(f);
            } catch (LookupFileException e) {
                throw new ParameterException(spec.commandLine(), "--format: " + e.getMessage());
            }
        }
        return f;
    }

    boolean isFiles(CommandSpec spec) {
        return name(spec).equals(TableFormat.FILES);
    }

    /**
     * The current version of the table at {@code path}: its data files, their deleted rows and the
     * format's name of the version. A directory (format {@code files}) is listed as before.
     */
    Listing current(
            CommandSpec spec,
            FileStore store,
            String label,
            String path,
            Map<String, String> hadoop)
            throws IOException {
        String f = name(spec);
        if (f.equals(TableFormat.FILES)) {
            return new Listing(path, InputFiles.list(spec, store, label, path));
        }
        SnapshotSource source = TableFormat.find(f).open(path, hadoop, store);
        return source.list(null);
    }
}
