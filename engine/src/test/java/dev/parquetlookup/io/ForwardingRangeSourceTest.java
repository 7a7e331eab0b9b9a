package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A decorator cannot silently drop a fast path of the source below it: {@link
 * ForwardingRangeSource} forwards every method of {@link RangeSource} (checked by calling each on a
 * recording delegate), and every class of the engine that wraps a {@link RangeSource} extends it.
 */
class ForwardingRangeSourceTest {

    @Test
    void forwardsEveryMethodOfRangeSource() throws Exception {
        List<String> called = new ArrayList<>();
        RangeSource recorder =
                (RangeSource)
                        Proxy.newProxyInstance(
                                RangeSource.class.getClassLoader(),
                                new Class<?>[] {RangeSource.class},
                                (proxy, method, args) -> {
                                    called.add(method.getName());
                                    return defaultValue(method.getReturnType());
                                });
        RangeSource forwarding = new ForwardingRangeSource(recorder) {};
        List<String> methods = new ArrayList<>();
        for (Method method : RangeSource.class.getMethods()) {
            if (Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            methods.add(method.getName());
            // Declared by the base itself, not inherited as an interface default.
            assertThat(
                            ForwardingRangeSource.class.getDeclaredMethod(
                                    method.getName(), method.getParameterTypes()))
                    .as("ForwardingRangeSource declares %s", method)
                    .isNotNull();
            called.clear();
            Object[] args = new Object[method.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = defaultValue(method.getParameterTypes()[i]);
            }
            try {
                method.invoke(forwarding, args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(method + " failed", e.getCause());
            }
            assertThat(called)
                    .as("calls forwarded by %s", method)
                    .containsExactly(method.getName());
        }
        assertThat(methods)
                .contains("readWith", "readHeld", "readsInline", "readAllAsync", "readAll");
    }

    @Test
    void everyDecoratorExtendsTheForwardingBase() {
        JavaClasses classes =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.parquetlookup");
        List<String> decorators = new ArrayList<>();
        List<String> notForwarding = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!c.isAssignableTo(RangeSource.class) || c.isInterface()) {
                continue;
            }
            boolean wraps = false;
            for (JavaClass k = c; k != null; k = k.getRawSuperclass().orElse(null)) {
                for (JavaField field : k.getFields()) {
                    wraps |= field.getRawType().isAssignableTo(RangeSource.class);
                }
            }
            if (!wraps) {
                continue;
            }
            decorators.add(c.getSimpleName());
            if (!c.isAssignableTo(ForwardingRangeSource.class)) {
                notForwarding.add(c.getName());
            }
        }
        assertThat(decorators)
                .contains(
                        "CountingRangeSource",
                        "FaultInjectingRangeSource",
                        "RetryingRangeSource",
                        "TieredRangeSource",
                        "TailRangeSource");
        assertThat(notForwarding)
                .as("RangeSource decorators that do not extend ForwardingRangeSource")
                .isEmpty();
    }

    private static Object defaultValue(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == List.class) {
            return List.of();
        }
        if (type == FileRange.class) {
            return new FileRange(0, 0);
        }
        if (type == byte[].class) {
            return new byte[0];
        }
        return null;
    }
}
