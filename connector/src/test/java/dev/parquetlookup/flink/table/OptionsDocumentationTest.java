package dev.parquetlookup.flink.table;

import org.apache.flink.configuration.ConfigOption;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The options table of docs/sql-connector.md against the declarations the factory accepts: every
 * option has a row with its required flag, type and default; no row names an option that does not
 * exist. A new option fails here until it is documented.
 */
class OptionsDocumentationTest {

    private static final Path DOC = Path.of("..", "docs", "sql-connector.md");

    /** A row of the table: Option | Required | Default | Type | Description. */
    private record Row(String required, String defaultValue, String type) {}

    @Test
    void theOptionsTableShowsEveryDeclaredOptionWithItsTypeAndDefault() throws Exception {
        Map<String, Row> rows = optionsTable();
        ParquetLookupDynamicTableFactory factory = new ParquetLookupDynamicTableFactory();
        Set<ConfigOption<?>> declared = new HashSet<>(factory.optionalOptions());
        declared.addAll(factory.requiredOptions());

        List<String> problems = new ArrayList<>();
        for (ConfigOption<?> option : declared) {
            Row row = rows.get(option.key());
            if (row == null) {
                problems.add(option.key() + ": no row");
                continue;
            }
            String required = factory.requiredOptions().contains(option) ? "yes" : "no";
            if (!row.required().equals(required)) {
                problems.add(option.key() + ": Required '" + row.required() + "', not " + required);
            }
            String type = typeName(option);
            if (!(type.equals("Enum") ? row.type().startsWith("Enum") : row.type().equals(type))) {
                problems.add(option.key() + ": Type '" + row.type() + "', declared " + type);
            }
            String shown = row.defaultValue();
            if (option.hasDefaultValue()) {
                if (!normalise(shown).equals(normalise(String.valueOf(option.defaultValue())))) {
                    problems.add(
                            option.key()
                                    + ": Default '"
                                    + shown
                                    + "', declared '"
                                    + option.defaultValue()
                                    + "'");
                }
            } else if (shown.matches("`[^`]*`")) {
                problems.add(option.key() + ": Default '" + shown + "', declared none");
            }
        }
        Set<String> keys = new HashSet<>();
        declared.forEach(o -> keys.add(o.key()));
        for (String key : rows.keySet()) {
            if (!keys.contains(key) && !key.equals("connector") && !key.endsWith(".*")) {
                problems.add(key + ": a row, but no such option");
            }
        }
        assertThat(problems).as("docs/sql-connector.md, section Options").isEmpty();
    }

    /** The rows of the first table after "## Options", by option key. */
    private static Map<String, Row> optionsTable() throws IOException {
        List<String> lines = Files.readAllLines(DOC);
        Map<String, Row> rows = new LinkedHashMap<>();
        int i = lines.indexOf("## Options");
        assertThat(i).as("'## Options' in " + DOC).isNotNegative();
        while (!lines.get(i).startsWith("|")) {
            i++;
        }
        for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String[] cells = lines.get(i).split("\\|");
            String key = cells[1].trim().replace("`", "");
            rows.put(key, new Row(cells[2].trim(), cells[3].trim(), cells[4].trim()));
        }
        assertThat(rows).as("rows of the options table").isNotEmpty();
        return rows;
    }

    /** As Flink's documentation names the types; "Enum" for enums. */
    private static String typeName(ConfigOption<?> option) throws ReflectiveOperationException {
        // ConfigOption#getClazz is package-private: Flink's own doc generator reads it the same
        // way.
        Method getClazz = ConfigOption.class.getDeclaredMethod("getClazz");
        getClazz.setAccessible(true);
        Class<?> type = (Class<?>) getClazz.invoke(option);
        return type.isEnum() ? "Enum" : type.getSimpleName();
    }

    /** {@code `256mb`} and {@code 256 mb} alike. */
    private static String normalise(String value) {
        return value.replace("`", "").replace(" ", "").toLowerCase(Locale.ROOT);
    }
}
