package org.cnxsim.junit5;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link CnxsimServe}: starts a {@link CnxsimServer}
 * before the class (or before each test method, {@link CnxsimServe.Scope#PER_METHOD}),
 * resolves {@code CnxsimServer} parameters of constructors, lifecycle and test
 * methods, and stops it afterwards. Without the annotation (plain
 * {@code @ExtendWith(CnxsimExtension.class)}) the defaults apply.
 *
 * <p>On a Spring test class the Spring integration
 * ({@link CnxsimContextCustomizerFactory}) owns the server, because Spring
 * caches the application context (and so the URLs it was given) beyond one
 * class; parameters then resolve to that server.
 */
public final class CnxsimExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(CnxsimExtension.class);
    private static final String KEY = "server:";

    @Override
    public void beforeAll(ExtensionContext context) {
        CnxsimServe options = options(context);
        if (SpringSupport.isSpringTest(context.getRequiredTestClass())) {
            if (options.scope() == CnxsimServe.Scope.PER_METHOD) {
                throw new IllegalStateException("@CnxsimServe(scope = PER_METHOD) on a Spring test class: the application"
                        + " context, and the URLs it was given, outlive one method; use"
                        + " @DirtiesContext(classMode = AFTER_EACH_TEST_METHOD) with the default scope instead");
            }
            return;
        }
        if (options.scope() == CnxsimServe.Scope.PER_CLASS) {
            // Already started when @TestInstance(PER_CLASS) had the constructor take it.
            // A @Nested class without its own annotation finds its enclosing class's server (the key
            // names the annotated class, and a store sees its parents'); one with its own starts another.
            context.getStore(NAMESPACE).getOrComputeIfAbsent(key(context), k -> start(options), CnxsimServer.class);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        CnxsimServe options = options(context);
        if (options.scope() == CnxsimServe.Scope.PER_METHOD && !SpringSupport.isSpringTest(context.getRequiredTestClass())) {
            context.getStore(NAMESPACE).put(key(context), start(options));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        stop(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop(context);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == CnxsimServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (context.getTestClass().isPresent() && SpringSupport.isSpringTest(context.getRequiredTestClass())) {
            return SpringSupport.server(context);
        }
        CnxsimServer server = context.getStore(NAMESPACE).get(key(context), CnxsimServer.class);
        if (server == null && context.getTestMethod().isEmpty()
                && options(context).scope() == CnxsimServe.Scope.PER_CLASS) {
            // @TestInstance(PER_CLASS): the instance is made before beforeAll.
            server = context.getStore(NAMESPACE).getOrComputeIfAbsent(key(context), k -> start(options(context)),
                    CnxsimServer.class);
        }
        if (server == null) {
            throw new ParameterResolutionException("no cnxsim serve for " + parameter.getDeclaringExecutable()
                    + ": with @CnxsimServe(scope = PER_METHOD) the server exists only for test methods"
                    + " and @BeforeEach/@AfterEach, not @BeforeAll or the constructor");
        }
        return server;
    }

    /** The store key of the server: the class whose @CnxsimServe applies (or the test class, for the defaults). */
    private static String key(ExtensionContext context) {
        Optional<Class<?>> type = context.getTestClass();
        while (type.isPresent()) {
            if (AnnotationSupport.findAnnotation(type.get(), CnxsimServe.class).isPresent()) {
                return KEY + type.get().getName();
            }
            type = Optional.ofNullable(type.get().getEnclosingClass());
        }
        return KEY + context.getTestClass().map(Class::getName).orElse("");
    }

    /** The annotation's options on the test class (or an enclosing class), else the defaults. */
    static CnxsimServe options(ExtensionContext context) {
        Optional<Class<?>> type = context.getTestClass();
        while (type.isPresent()) {
            Optional<CnxsimServe> found = AnnotationSupport.findAnnotation(type.get(), CnxsimServe.class);
            if (found.isPresent()) {
                return found.get();
            }
            type = Optional.ofNullable(type.get().getEnclosingClass());
        }
        return Defaults.class.getAnnotation(CnxsimServe.class);
    }

    /** Starts serve with the annotation's options. */
    static CnxsimServer start(CnxsimServe options) {
        return CnxsimServer.builder()
                .version(options.version())
                .settings(options.settings())
                .setup(options.setup())
                .args(options.args())
                .startTimeout(Duration.ofSeconds(options.startTimeoutSeconds()))
                .start();
    }

    private static void stop(ExtensionContext context) {
        // Only the store of the context that started it holds it (get() would also look in the parents').
        CnxsimServer server = context.getStore(NAMESPACE).remove(key(context), CnxsimServer.class);
        if (server != null) {
            server.close();
        }
    }

    @CnxsimServe
    private static final class Defaults {}
}
