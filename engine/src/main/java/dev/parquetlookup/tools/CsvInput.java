package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads CSV files (RFC 4180: a header line, quoted fields may hold separators, quotes and line
 * breaks) into rows of engine values. Column types come from {@code --schema} or are inferred from
 * every value of the file (a first pass): BIGINT, DOUBLE, BOOLEAN, DATE, TIMESTAMP(6) or STRING. An
 * unquoted empty field is NULL; a quoted one ({@code ""}) is the empty string.
 */
final class CsvInput implements PrepareInput {

    /** A field that was an unquoted empty string. */
    private static final String NULL = new String("");

    private final FileStore store;
    private final List<FileId> files;
    private final char separator;
    private final List<ColumnSpec> columns;

    /** Bytes of the files read so far by {@link #read}, for the progress line. */
    private final AtomicLong bytesRead = new AtomicLong();

    private CsvInput(
            FileStore store, List<FileId> files, char separator, List<ColumnSpec> columns) {
        this.store = store;
        this.files = files;
        this.separator = separator;
        this.columns = columns;
    }

    /**
     * Reads the headers (and, without a schema, infers the types from all values).
     *
     * @param schema declared columns, or null to infer them
     */
    static CsvInput open(
            FileStore store, List<FileId> files, char separator, List<ColumnSpec> schema)
            throws IOException {
        List<String> header = null;
        for (FileId file : files) {
            try (Records records = new Records(store, file, separator, new AtomicLong())) {
                List<String> h = records.next();
                if (h == null) {
                    throw new IllegalArgumentException(
                            "CSV file " + file + " is empty: it needs a header line");
                }
                if (header == null) {
                    header = h;
                } else if (!header.equals(h)) {
                    throw new IllegalArgumentException(
                            "CSV file "
                                    + file
                                    + " has header "
                                    + h
                                    + " but "
                                    + files.get(0)
                                    + " has "
                                    + header
                                    + ": all input files need the same columns");
                }
            }
        }
        Set<String> seen = new HashSet<>();
        for (String name : header) {
            if (name == null || name.isBlank() || !seen.add(name)) {
                throw new IllegalArgumentException(
                        "CSV header "
                                + header
                                + " has an empty or repeated column name: give every column a"
                                + " unique name");
            }
        }
        List<ColumnSpec> columns;
        if (schema != null) {
            List<String> declared = schema.stream().map(ColumnSpec::name).toList();
            if (!declared.equals(header)) {
                throw new IllegalArgumentException(
                        "--schema declares columns "
                                + declared
                                + " but the CSV header is "
                                + header
                                + ": declare the same columns in the same order");
            }
            columns = schema;
        } else {
            columns = infer(store, files, separator, header);
        }
        return new CsvInput(store, files, separator, columns);
    }

    /** The types a column may be inferred as, the first that holds every value first. */
    private static final List<ValueType> INFERRED =
            List.of(
                    ValueType.of(Kind.BIGINT),
                    ValueType.of(Kind.DOUBLE),
                    ValueType.of(Kind.BOOLEAN),
                    ValueType.of(Kind.DATE),
                    new ValueType(Kind.TIMESTAMP, 6, 0));

    private static List<ColumnSpec> infer(
            FileStore store, List<FileId> files, char separator, List<String> header)
            throws IOException {
        int n = header.size();
        // Per column, a bit per INFERRED type that every value so far parses as.
        int[] fits = new int[n];
        Arrays.fill(fits, (1 << INFERRED.size()) - 1);
        boolean[] sawValue = new boolean[n];
        boolean[] sawNull = new boolean[n];
        for (FileId file : files) {
            try (Records records = new Records(store, file, separator, new AtomicLong())) {
                records.next();
                for (List<String> r = records.next(); r != null; r = records.next()) {
                    checkWidth(file, records, r, n);
                    for (int i = 0; i < n; i++) {
                        String v = r.get(i);
                        if (v == NULL) {
                            sawNull[i] = true;
                            continue;
                        }
                        sawValue[i] = true;
                        for (int t = 0; t < INFERRED.size(); t++) {
                            if ((fits[i] & (1 << t)) != 0 && !parses(INFERRED.get(t), v)) {
                                fits[i] &= ~(1 << t);
                            }
                        }
                    }
                }
            }
        }
        List<ColumnSpec> columns = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int first = Integer.numberOfTrailingZeros(fits[i]);
            ValueType type =
                    sawValue[i] && first < INFERRED.size()
                            ? INFERRED.get(first)
                            : ValueType.of(Kind.STRING);
            columns.add(
                    new ColumnSpec(header.get(i), type, sawNull[i] || !sawValue[i], null, null));
        }
        return columns;
    }

    private static boolean parses(ValueType type, String v) {
        if (v.isEmpty() || Character.isWhitespace(v.charAt(0))) {
            return false;
        }
        if (type.kind() == Kind.BOOLEAN) {
            return v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false");
        }
        try {
            TextValues.parse(type, v);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void checkWidth(FileId file, Records records, List<String> r, int n) {
        if (r.size() != n) {
            throw new IllegalArgumentException(
                    "CSV file "
                            + file
                            + " line "
                            + records.line
                            + " has "
                            + r.size()
                            + " fields but the header has "
                            + n
                            + ": check the separator (--delimiter) and quoting");
        }
    }

    @Override
    public List<ColumnSpec> columns() {
        return columns;
    }

    @Override
    public void read(RowSink sink) throws IOException {
        int n = columns.size();
        for (FileId file : files) {
            long before = bytesRead.get();
            try (Records records = new Records(store, file, separator, bytesRead)) {
                records.next();
                for (List<String> r = records.next(); r != null; r = records.next()) {
                    checkWidth(file, records, r, n);
                    Object[] row = new Object[n];
                    for (int i = 0; i < n; i++) {
                        String v = r.get(i);
                        if (v == NULL) {
                            continue;
                        }
                        try {
                            row[i] = TextValues.parse(columns.get(i).type(), v);
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException(
                                    "CSV file "
                                            + file
                                            + " line "
                                            + records.line
                                            + ", column '"
                                            + columns.get(i).name()
                                            + "': "
                                            + e.getMessage()
                                            + ". Fix the value or declare the column's type with"
                                            + " --schema",
                                    e);
                        }
                    }
                    sink.accept(row, null);
                }
            }
            bytesRead.set(before + file.length());
        }
    }

    /** By bytes read so far (buffered ahead by up to 64 KiB) of all input files' bytes. */
    @Override
    public double fraction(long rows) {
        return (double) bytesRead.get()
                / Math.max(1, files.stream().mapToLong(FileId::length).sum());
    }

    /** RFC 4180 records of one file. */
    private static final class Records implements AutoCloseable {
        private final RangeSource source;
        private final Reader in;
        private final char separator;
        private int pending = -2;

        /** Line number where the current record starts (1-based). */
        int line;

        private int nextLine = 1;

        Records(FileStore store, FileId file, char separator, AtomicLong counter)
                throws IOException {
            this.source = store.open(file);
            java.io.InputStream raw = new RangeSourceInputFile(source).newStream();
            java.io.InputStream counted =
                    new java.io.FilterInputStream(raw) {
                        @Override
                        public int read() throws IOException {
                            int b = super.read();
                            if (b >= 0) {
                                counter.incrementAndGet();
                            }
                            return b;
                        }

                        @Override
                        public int read(byte[] b, int off, int len) throws IOException {
                            int n = super.read(b, off, len);
                            if (n > 0) {
                                counter.addAndGet(n);
                            }
                            return n;
                        }
                    };
            this.in =
                    new BufferedReader(
                            new InputStreamReader(counted, StandardCharsets.UTF_8), 1 << 16);
            this.separator = separator;
        }

        private int read() throws IOException {
            if (pending != -2) {
                int c = pending;
                pending = -2;
                return c;
            }
            return in.read();
        }

        /** The next record's fields, or null at the end of the file. */
        List<String> next() throws IOException {
            int c = read();
            if (c == 0xFEFF && nextLine == 1) {
                c = read(); // byte order mark
            }
            // Skip blank lines between records.
            while (c == '\n' || c == '\r') {
                if (c == '\n') {
                    nextLine++;
                }
                c = read();
            }
            if (c < 0) {
                return null;
            }
            line = nextLine;
            List<String> fields = new ArrayList<>();
            StringBuilder field = new StringBuilder();
            boolean quoted = false;
            boolean wasQuoted = false;
            while (true) {
                if (quoted) {
                    if (c < 0) {
                        throw new IllegalArgumentException(
                                "CSV line " + line + ": a quoted field is not closed");
                    }
                    if (c == '"') {
                        int d = read();
                        if (d == '"') {
                            field.append('"');
                        } else {
                            quoted = false;
                            c = d;
                            continue;
                        }
                    } else {
                        if (c == '\n') {
                            nextLine++;
                        }
                        field.append((char) c);
                    }
                    c = read();
                    continue;
                }
                if (c < 0 || c == '\n' || c == '\r' || c == separator) {
                    fields.add(!wasQuoted && field.length() == 0 ? NULL : field.toString());
                    field.setLength(0);
                    wasQuoted = false;
                    if (c == separator) {
                        c = read();
                        continue;
                    }
                    if (c == '\r') {
                        int d = read();
                        if (d != '\n') {
                            pending = d;
                        }
                    }
                    if (c >= 0) {
                        nextLine++;
                    }
                    return fields;
                }
                if (c == '"' && field.length() == 0 && !wasQuoted) {
                    quoted = true;
                    wasQuoted = true;
                } else {
                    field.append((char) c);
                }
                c = read();
            }
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } finally {
                source.close();
            }
        }
    }
}
