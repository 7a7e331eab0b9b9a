package dev.parquetlookup.e2e;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The e2e tests' dimension table {@code customers(id BIGINT, name STRING, tier INT)}: customers
 * have even ids {@code 0, 2, ..., 2 * (count - 1)}, so odd ids are lookup misses. Values are a
 * function of the id, so the expected enrichment of any event is computed, never stored.
 *
 * <pre>{@code
 * DimensionFiles.write(dir, 10_000, 3, WriterOptions.Codec.ZSTD);
 * Optional<Customer> c = DimensionFiles.customer(42); // Customer[id=42, name=customer-42, tier=2]
 * }</pre>
 */
final class DimensionFiles {

    static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("tier", ValueType.of(Kind.INT)));

    /** One dimension row. */
    record Customer(long id, String name, int tier) {}

    private DimensionFiles() {}

    /**
     * Writes {@code count} customers, split into {@code files} sorted files of consecutive ids,
     * with small pages and row groups so lookups cross page and row-group boundaries.
     */
    static void write(Path dir, long count, int files, WriterOptions.Codec codec)
            throws IOException {
        Files.createDirectories(dir);
        WriterOptions options =
                WriterOptions.builder()
                        .codec(codec)
                        .rowsPerPage(256)
                        .rowsPerRowGroup(4_096)
                        .build();
        long perFile = (count + files - 1) / files;
        for (int f = 0; f < files; f++) {
            long from = f * perFile;
            long to = Math.min(count, from + perFile);
            Path file = dir.resolve(String.format("part-%03d.parquet", f));
            try (LookupFileWriter writer =
                    LookupFileWriter.open(file.toString(), COLUMNS, List.of("id"), options)) {
                for (long i = from; i < to; i++) {
                    Customer c = customer(2 * i).orElseThrow();
                    writer.write(new Object[] {c.id(), c.name(), c.tier()});
                }
            }
        }
    }

    /** The customer with this id, if the table has one (even ids below 2 * count). */
    static Optional<Customer> customer(long id) {
        if (id < 0 || id % 2 != 0) {
            return Optional.empty();
        }
        return Optional.of(new Customer(id, "customer-" + id, (int) (id % 7)));
    }

    /** {@link #customer(long)} limited to a table of {@code count} customers. */
    static Optional<Customer> customer(long id, long count) {
        return id < 2 * count ? customer(id) : Optional.empty();
    }
}
