package org.cnxsim.junit5;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Starts {@code cnxsim serve --port 0 --admin-port 0} for the annotated test
 * class (or for each of its test methods), injects a {@link CnxsimServer}
 * parameter with its URLs, and stops it with SIGTERM afterwards.
 *
 * <p>Usable directly, with {@code @ExtendWith(CnxsimExtension.class)} (the
 * defaults then apply), or as a meta-annotation on an annotation of your own.
 * On a Spring test class ({@code @SpringBootTest}), the server lives with the
 * application context, whose environment gets {@code spring.pulsar.client.service-url}
 * and {@code spring.pulsar.admin.service-url}.
 *
 * <p>The binary is the system property {@code CNXSIM}, else the environment
 * variable {@code CNXSIM}, else {@code cnxsim} on {@code PATH}.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(CnxsimExtension.class)
public @interface CnxsimServe {
    /** The Pulsar release whose behaviour is served ({@code --broker-version}), e.g. "3.0" or "4.2.5"; empty: the newest. */
    String version() default "";

    /** broker.conf settings as {@code key=value}, each passed as {@code --set key=value}. */
    String[] settings() default {};

    /** A setup file ({@code --setup}, the scenario format); a relative path is resolved against the working directory. */
    String setup() default "";

    /** Further arguments for {@code cnxsim serve}, e.g. {@code {"--tls-port", "0"}}. */
    String[] args() default {};

    /** One server for the class (default), or a fresh one for each test method. */
    Scope scope() default Scope.PER_CLASS;

    /** How long to wait for the ready line before failing. */
    int startTimeoutSeconds() default 30;

    /** The lifetime of one server. */
    enum Scope {
        /** Started before the class's first test, stopped after its last. */
        PER_CLASS,
        /** Started before each test method, stopped after it. */
        PER_METHOD
    }
}
