package dev.parquetlookup.formats;

import dev.parquetlookup.engine.source.TableFormat;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A directory of sorted Parquet files read as {@code 'format' = 'files'} under the versions
 * contract: each change of the directory is served as a version of its own, exactly.
 */
class PlainFilesTableTest extends TableVersionsContract<PlainFilesTestTable, Path> {

    @Override
    String format() {
        return TableFormat.FILES;
    }

    @Override
    PlainFilesTestTable create() throws IOException {
        return new PlainFilesTestTable(dir.resolve("dim"));
    }
}
