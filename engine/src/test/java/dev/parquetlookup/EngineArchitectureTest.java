package dev.parquetlookup;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine is a library on its own: Flink is not even on its class path (the module's build
 * enforces it), Hadoop is reached only through {@code io}, and the layers point down: {@code io} at
 * the bottom, then {@code metadata}, then {@code engine}; the command line ({@code tools}) on top.
 */
class EngineArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.parquetlookup");
    }

    @Test
    void flinkIsNotOnTheEngineClassPath() {
        assertThatThrownBy(() -> Class.forName("org.apache.flink.api.common.functions.Function"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void packagesAreFreeOfCycles() {
        // Every package on its own (io and io.disk are two slices): no package reaches itself back.
        slices().matching("dev.parquetlookup.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void metadataDoesNotDependOnTheEngine() {
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.metadata..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.parquetlookup.engine..", "dev.parquetlookup.tools..")
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

    @Test
    void ioIsTheBottomLayer() {
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.io..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.parquetlookup.metadata..",
                        "dev.parquetlookup.engine..",
                        "dev.parquetlookup.writer..",
                        "dev.parquetlookup.tools..")
                .check(classes);
    }

    @Test
    void nothingDependsOnTheCommandLine() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.parquetlookup.tools..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.parquetlookup.tools..")
                .check(classes);
    }

    @Test
    void readSideDoesNotDependOnTheWriter() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.parquetlookup.io..",
                        "dev.parquetlookup.metadata..",
                        "dev.parquetlookup.engine..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.parquetlookup.writer..")
                .check(classes);
    }

    @Test
    void writerDoesNotDependOnTheReadSide() {
        // What both need (ValueType, TimestampValue) lives in types, below both.
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.writer..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.parquetlookup.engine..", "dev.parquetlookup.metadata..")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.types..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.parquetlookup.io..",
                        "dev.parquetlookup.metadata..",
                        "dev.parquetlookup.engine..",
                        "dev.parquetlookup.writer..",
                        "dev.parquetlookup.tools..")
                .check(classes);
    }
}
