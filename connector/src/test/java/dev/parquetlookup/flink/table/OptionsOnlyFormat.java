package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import java.util.Map;
import java.util.Optional;

/**
 * A table format of the tests only ({@code 'format' = 'options-only'}), registered as a service: it
 * declares its own option prefix, so the tests show that the connector accepts and passes on a
 * format's options without knowing them, on every Flink line (the real formats are not on every
 * line's class path). It serves nothing.
 */
public final class OptionsOnlyFormat implements TableFormat {

    @Override
    public String name() {
        return "options-only";
    }

    @Override
    public Optional<String> optionPrefix() {
        return Optional.of("options-only.");
    }

    @Override
    public SnapshotSource open(String path, Map<String, String> hadoopOptions, FileStore store) {
        throw new LookupFileException("The 'options-only' format of the tests serves no table.");
    }
}
