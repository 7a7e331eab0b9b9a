package dev.parquetlookup;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine is a library on its own: Flink is not even on its class path (the module's build
 * enforces it), Hadoop is reached only through {@code io}, and the layers point down: {@code io} at
 * the bottom, then {@code metadata}, then the {@code engine} packages (themselves layered: {@code
 * table}, {@code source}, {@code lookup}, {@code read}, {@code page}, {@code codec}); the command
 * line ({@code tools}) on top. No package holds more than 30 classes.
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
        // Every package on its own (io and io.disk, engine.lookup and engine.read are two slices
        // each): no package reaches itself back.
        slices().matching("dev.parquetlookup.(**)").should().beFreeOfCycles().check(classes);
    }

    /** The engine's packages, top down: each may use only the ones after it. */
    private static final List<String> ENGINE_LAYERS =
            List.of("table", "source", "lookup", "local", "index", "read", "page", "codec");

    @Test
    void enginePackagesPointDown() {
        for (int i = 1; i < ENGINE_LAYERS.size(); i++) {
            noClasses()
                    .that()
                    .resideInAPackage("dev.parquetlookup.engine." + ENGINE_LAYERS.get(i))
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage(
                            ENGINE_LAYERS.subList(0, i).stream()
                                    .map(p -> "dev.parquetlookup.engine." + p)
                                    .toArray(String[]::new))
                    .check(classes);
        }
        assertThat(classes.stream().map(JavaClass::getPackageName))
                .filteredOn(p -> p.startsWith("dev.parquetlookup.engine"))
                .allMatch(p -> ENGINE_LAYERS.stream().anyMatch(l -> p.endsWith(".engine." + l)));
    }

    @Test
    void noPackageHoldsMoreThan30Classes() {
        Map<String, Long> sizes =
                classes.stream()
                        .filter(c -> c.getEnclosingClass().isEmpty() && !c.isAnonymousClass())
                        .collect(
                                Collectors.groupingBy(
                                        JavaClass::getPackageName, Collectors.counting()));
        assertThat(sizes)
                .isNotEmpty()
                .allSatisfy((p, n) -> assertThat(n).as(p).isLessThanOrEqualTo(30));
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
        // Except engine.local, which writes the local forms of files with pages too large to read
        // per lookup (docs/formats.md) with the writer's point-read layout.
        noClasses()
                .that()
                .resideInAnyPackage(
                        "dev.parquetlookup.io..",
                        "dev.parquetlookup.metadata..",
                        "dev.parquetlookup.engine..")
                .and()
                .resideOutsideOfPackage("dev.parquetlookup.engine.local..")
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
