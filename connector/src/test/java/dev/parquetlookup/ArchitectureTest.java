package dev.parquetlookup;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The engine is a library on its own: no Flink below the glue, Hadoop only in {@code io}. */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.parquetlookup");
    }

    @Test
    void engineLayersDoNotUseFlink() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.parquetlookup.io..",
                        "dev.parquetlookup.metadata..",
                        "dev.parquetlookup.engine..",
                        "dev.parquetlookup.writer..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.flink..")
                .check(classes);
    }

    @Test
    void onlyIoUsesHadoop() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.parquetlookup.io..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.hadoop..")
                .check(classes);
    }
}
