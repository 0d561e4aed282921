package org.cnxsim.junit5;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/** The extension's view of Spring, touched only when Spring's test context is on the classpath. */
final class SpringSupport {
    private static final String SPRING_EXTENSION = "org.springframework.test.context.junit.jupiter.SpringExtension";

    private SpringSupport() {}

    /** True when the class runs with Spring's JUnit extension (as @SpringBootTest and @SpringJUnitConfig do). */
    static boolean isSpringTest(Class<?> testClass) {
        return AnnotationSupport.findRepeatableAnnotations(testClass, ExtendWith.class).stream()
                .flatMap(e -> java.util.Arrays.stream(e.value()))
                .anyMatch(c -> c.getName().equals(SPRING_EXTENSION));
    }

    /** The server the application context of this test was given (CnxsimContextCustomizerFactory). */
    static CnxsimServer server(ExtensionContext context) {
        return org.springframework.test.context.junit.jupiter.SpringExtension.getApplicationContext(context)
                .getBean(CnxsimServer.class);
    }
}
