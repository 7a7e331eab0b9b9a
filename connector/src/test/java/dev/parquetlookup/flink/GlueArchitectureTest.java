package dev.parquetlookup.flink;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The Flink glue is thin: it reaches files only through the engine (no Hadoop, no parquet-java),
 * the lookup layer (functions, runtime) is shared by the SQL and DataStream layers above it, and
 * only the per-line shim touches what differs between Flink lines.
 */
class GlueArchitectureTest {

    private static JavaClasses glue;

    @BeforeAll
    static void importClasses() {
        glue =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        // connector-flink-1.20 runs these tests from this module's test jar
                        .withImportOption(location -> !location.contains("-tests.jar"))
                        .importPackages("dev.parquetlookup.flink");
    }

    @Test
    void glueReadsFilesOnlyThroughTheEngine() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.apache.hadoop..", "org.apache.parquet..")
                .check(glue);
    }

    @Test
    void lookupLayerDoesNotDependOnSqlOrDataStream() {
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.flink.lookup..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.parquetlookup.flink.table..", "dev.parquetlookup.flink.datastream..")
                .check(glue);
    }

    /**
     * The Flink API that differs between the Flink lines is reached only through the shim (one per
     * line: connector-flink-2, connector-flink-1.20), so the rest of the glue is compiled once and
     * links against either line.
     */
    @Test
    void onlyTheShimUsesFlinkApiOfOneLine() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.parquetlookup.flink.shim..")
                .should()
                .dependOnClassesThat()
                .haveNameMatching(
                        "org\\.apache\\.flink\\.table\\.connector\\.source\\.abilities"
                                + "\\.SupportsLookupCustomShuffle.*")
                .orShould()
                .callMethod(
                        "org.apache.flink.table.connector.source.LookupTableSource$LookupContext",
                        "preferCustomShuffle")
                .check(glue);
    }

    @Test
    void sqlAndDataStreamDoNotDependOnEachOther() {
        slices().matching("dev.parquetlookup.flink.(*)..").should().beFreeOfCycles().check(glue);
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.flink.datastream..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.parquetlookup.flink.table..")
                .check(glue);
    }
}
