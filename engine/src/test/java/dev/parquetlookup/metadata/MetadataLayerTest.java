package dev.parquetlookup.metadata;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * {@code metadata} sits below the engine: it uses {@code io} and parquet-java only. What it needs
 * from above (decoding key pages) comes in through {@link PageBoundsDecoder}.
 */
class MetadataLayerTest {

    @Test
    void metadataDoesNotDependOnTheLayersAboveIt() {
        noClasses()
                .that()
                .resideInAPackage("dev.parquetlookup.metadata..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.parquetlookup.engine..",
                        "dev.parquetlookup.writer..",
                        "dev.parquetlookup.tools..",
                        "dev.parquetlookup.flink..")
                .check(
                        new ClassFileImporter()
                                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                                .importPackages("dev.parquetlookup"));
    }
}
