package dev.parquetlookup.bench;

import org.duckdb.DuckDBConnection;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * DuckDB JDBC: one in-process database with {@code SET parquet_metadata_cache = true}; each thread
 * gets its own duplicated connection and one prepared {@code SELECT v FROM read_parquet(?) WHERE k
 * = ?}.
 */
final class DuckDbSystem implements LookupSystem {

    /** DuckDB's worker threads per database; null keeps DuckDB's default (one per core). */
    static final String THREADS = System.getProperty("bench.duckdb.threads");

    private final Path file;
    private final DuckDBConnection root;
    private final boolean ownsRoot;

    DuckDbSystem(Path file) throws SQLException {
        this(file, openDatabase(), true);
    }

    DuckDbSystem(Path file, DuckDBConnection root, boolean ownsRoot) {
        this.file = file;
        this.root = root;
        this.ownsRoot = ownsRoot;
    }

    /** A fresh in-memory database configured for point queries. */
    static DuckDBConnection openDatabase() throws SQLException {
        DuckDBConnection conn = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = conn.createStatement()) {
            st.execute("SET parquet_metadata_cache = true");
            if (THREADS != null) {
                st.execute("SET threads = " + Integer.parseInt(THREADS));
            }
        }
        return conn;
    }

    @Override
    public String name() {
        return "duckdb";
    }

    @Override
    public String config() {
        return "DuckDB JDBC 2.0.0.1, in-memory database, SET parquet_metadata_cache = true, one"
                + " duplicated connection per thread with a prepared SELECT v FROM read_parquet(?)"
                + " WHERE k = ? (path and key bound as parameters), threads="
                + (THREADS == null ? "default" : THREADS);
    }

    @Override
    public Session session() throws SQLException {
        Connection conn = root.duplicate();
        PreparedStatement ps = conn.prepareStatement("SELECT v FROM read_parquet(?) WHERE k = ?");
        ps.setString(1, file.toString());
        return new Session() {
            @Override
            public String lookup(long k) throws SQLException {
                ps.setLong(2, k);
                String found = null;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found = rs.getString(1);
                    }
                }
                return found;
            }

            @Override
            public void close() throws SQLException {
                ps.close();
                conn.close();
            }
        };
    }

    @Override
    public void close() throws SQLException {
        if (ownsRoot) {
            root.close();
        }
    }
}
