package dev.parquetlookup.examples;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.util.List;

/**
 * The examples' customer dimension: {@code id BIGINT} 1..N (sorted, unique), {@code name STRING},
 * {@code country STRING}, {@code credit DECIMAL(12, 2)}, {@code updated TIMESTAMP(3)}, each a
 * deterministic function of {@code id}, so any enriched row can be checked.
 *
 * <pre>{@code
 * Path dir = CustomerDimension.ensure(Path.of("/tmp/data"), 1_000_000);  // written once, reused
 * CustomerDimension.name(42);     // "customer-42"
 * }</pre>
 */
public final class CustomerDimension {

    public static final String SQL_COLUMNS =
            "id BIGINT, name STRING, country STRING, credit DECIMAL(12, 2), updated TIMESTAMP(3)";

    static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("name", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("country", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("credit", new ValueType(Kind.DECIMAL, 12, 2)),
                    ColumnSpec.required("updated", new ValueType(Kind.TIMESTAMP, 3, 0)));

    private static final String[] COUNTRIES = {
        "BR", "CA", "CN", "DE", "ES", "FR", "GB", "IN", "IT", "JP", "KR", "MX", "NL", "PL", "SE",
        "US"
    };
    private static final LocalDateTime EPOCH = LocalDateTime.of(2025, 1, 1, 0, 0);

    private CustomerDimension() {}

    /**
     * The directory holding the dimension of {@code customers} rows below {@code dataDir}, written
     * with {@link WriterOptions#defaults()} if it is not there yet.
     */
    public static Path ensure(Path dataDir, long customers) throws IOException {
        Path dir = dataDir.resolve("customers-" + customers);
        Path file = dir.resolve("part-00000.parquet");
        if (Files.exists(file)) {
            return dir;
        }
        Files.createDirectories(dir);
        // Hidden while written (the table skips '.' files), then moved into place.
        Path temp = dir.resolve(".part-00000.parquet.tmp");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        temp.toString(),
                        COLUMNS,
                        List.of("id"),
                        WriterOptions.defaults().toBuilder().overwrite(true).build())) {
            for (long id = 1; id <= customers; id++) {
                writer.write(new Object[] {id, name(id), country(id), credit(id), updated(id)});
            }
        }
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return dir;
    }

    public static String name(long id) {
        return "customer-" + id;
    }

    public static String country(long id) {
        return COUNTRIES[(int) (mix(id) % COUNTRIES.length)];
    }

    public static BigDecimal credit(long id) {
        return BigDecimal.valueOf(mix(id * 31 + 7) % 100_000_000L, 2);
    }

    public static LocalDateTime updated(long id) {
        long millis = mix(id * 17 + 3) % (365L * 24 * 3600 * 1000);
        return EPOCH.plusNanos(millis * 1_000_000L);
    }

    /** A non-negative hash of {@code x} (SplitMix64's finaliser). */
    private static long mix(long x) {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (z ^ (z >>> 31)) >>> 1;
    }
}
