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
 * and the lookup layer (functions, runtime) is shared by the SQL and DataStream layers above it.
 */
class GlueArchitectureTest {

    private static JavaClasses glue;

    @BeforeAll
    static void importClasses() {
        glue =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
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
