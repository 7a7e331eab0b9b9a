package dev.parquetlookup.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * An in-memory DuckDB for a test class, on one thread (so the files it writes are the same every
 * run): opened before the class's first test, closed after its last, whatever happened.
 *
 * <pre>{@code
 * @RegisterExtension static final DuckDbExtension duck = new DuckDbExtension();
 * ...
 * duck.writeParquet("SELECT i AS id FROM range(100) t(i)", file, "ROW_GROUP_SIZE 2048");
 * try (PreparedStatement q = duck.prepareStatement("SELECT ... FROM read_parquet(?)")) { ... }
 * }</pre>
 */
public final class DuckDbExtension implements BeforeAllCallback, AfterAllCallback {

    private Connection connection;

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        connection = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = connection.createStatement()) {
            st.execute("SET threads = 1");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }

    /**
     * Writes the rows of {@code select} to {@code file}: {@code COPY (select) TO 'file' (FORMAT
     * parquet, options)}; {@code options} is DuckDB's list after the format ({@code ""} for none).
     */
    public void writeParquet(String select, Path file, String options) throws SQLException {
        try (Statement st = createStatement()) {
            st.execute(
                    "COPY ("
                            + select
                            + ") TO '"
                            + file
                            + "' (FORMAT parquet"
                            + (options.isEmpty() ? "" : ", " + options)
                            + ")");
        }
    }

    public Statement createStatement() throws SQLException {
        return connection.createStatement();
    }

    public PreparedStatement prepareStatement(String sql) throws SQLException {
        return connection.prepareStatement(sql);
    }
}
