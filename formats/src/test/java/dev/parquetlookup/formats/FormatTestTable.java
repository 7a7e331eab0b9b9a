package dev.parquetlookup.formats;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A table of one format written by that format's own writers, for the contract tests ({@link
 * TableVersionsContract}, {@link TableFormatContract}): rows {@code (id BIGINT NOT NULL, name
 * STRING, region STRING)} sorted by {@code id} within each data file, and an independent reading of
 * every version (the format's own reader, or what was written for plain files).
 *
 * @param <F> what names one data file of the table (to overwrite, drop or delete rows of it later)
 */
interface FormatTestTable<F> {

    /** One row. */
    record Row(long id, String name, String region) {

        /** The rows as column name to value, for {@link #appendValues}. */
        static List<Map<String, Object>> values(List<Row> rows) {
            List<Map<String, Object>> values = new ArrayList<>();
            for (Row r : rows) {
                Map<String, Object> row = new HashMap<>();
                row.put("id", r.id());
                row.put("name", r.name());
                row.put("region", r.region());
                values.add(row);
            }
            return values;
        }
    }

    /**
     * The version's name as the engine reports it ({@code RefreshingTable.Lease#sourceVersion}).
     */
    String versionLabel(long version);

    /** The latest version. */
    long version();

    /** Appends one data file of {@code rows} in a new version; returns it. */
    F append(List<Row> rows) throws IOException;

    /** Appends one data file per list of rows, all in one version. */
    void appendFiles(List<List<Row>> files) throws IOException;

    /** Replaces {@code old} by a new file of {@code rows} in one version; returns the new file. */
    F overwrite(F old, List<Row> rows) throws IOException;

    /** Drops a whole data file in a new version. */
    void deleteFile(F file) throws IOException;

    /** Where {@code file} is stored. */
    Path dataFile(F file);

    /**
     * Appends one data file of rows of the current schema (column name to value; absent columns
     * NULL) in the partition of the first row.
     */
    void appendValues(List<Map<String, Object>> rows) throws IOException;

    /**
     * The independent reading: every row of {@code version}, grouped by id as {@code
     * "id|name|region"} strings.
     */
    default Map<Long, List<String>> read(long version) throws IOException {
        return readColumns(version, List.of("id", "name", "region"));
    }

    /** The independent reading of {@code columns}, by id, as {@code "v1|v2|..."} strings. */
    Map<Long, List<String>> readColumns(long version, List<String> columns) throws IOException;

    /** Rows {@code ids} named {@code prefix-id}, all in {@code region}. */
    static List<Row> rows(String prefix, String region, long... ids) {
        List<Row> rows = new ArrayList<>();
        for (long id : ids) {
            rows.add(new Row(id, prefix + "-" + id, region));
        }
        return rows;
    }

    static long[] range(long from, long to, long step) {
        List<Long> ids = new ArrayList<>();
        for (long i = from; i < to; i += step) {
            ids.add(i);
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** One row as text; the engine returns strings as UTF-8 bytes. */
    static String text(Object id, Object name, Object region) {
        return joined(id, name, region);
    }

    /** Values as text joined by '|', strings decoded from the engine's UTF-8 bytes. */
    static String joined(Object... values) {
        List<String> parts = new ArrayList<>();
        for (Object v : values) {
            parts.add(
                    String.valueOf(
                            v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v));
        }
        return String.join("|", parts);
    }
}
