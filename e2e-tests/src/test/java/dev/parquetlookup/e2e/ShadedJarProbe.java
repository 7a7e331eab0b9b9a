package dev.parquetlookup.e2e;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Run by {@link ShadedJarITCase} in a JVM whose class path is the shaded SQL jar plus this class
 * only (no Flink, no Hadoop installation, no SLF4J binding): looks keys up through the engine and
 * prints {@code key=name,tier} or {@code key=-} per key.
 *
 * <pre>{@code
 * java -cp flink-sql-connector-parquet-lookup.jar:test-classes dev.parquetlookup.e2e.ShadedJarProbe \
 *     file:///data/customers 0 1 2
 * }</pre>
 */
public final class ShadedJarProbe {

    private ShadedJarProbe() {}

    public static void main(String[] args) throws Exception {
        try (DimensionTable table = DimensionTable.open(TableConfig.builder(args[0]).build())) {
            LookupPlan plan = table.plan(List.of("id"), List.of("name", "tier"));
            for (String key : Arrays.asList(args).subList(1, args.length)) {
                List<Object[]> rows = table.lookup(plan, new Object[] {Long.parseLong(key)});
                StringBuilder line = new StringBuilder(key).append('=');
                if (rows.isEmpty()) {
                    line.append('-');
                }
                for (Object[] row : rows) {
                    // STRING values are UTF-8 bytes in the engine's representation.
                    line.append(new String((byte[]) row[0], StandardCharsets.UTF_8))
                            .append(',')
                            .append(row[1])
                            .append(';');
                }
                System.out.println(line);
            }
        }
    }
}
