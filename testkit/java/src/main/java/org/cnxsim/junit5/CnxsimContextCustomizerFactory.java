package org.cnxsim.junit5;

import java.util.List;
import java.util.Map;
import org.junit.platform.commons.support.AnnotationSupport;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Spring's side of {@link CnxsimServe} (registered in META-INF/spring.factories):
 * for a Spring test class carrying the annotation, the application context
 * starts its own {@code cnxsim serve} as it is built, gets
 * {@code spring.pulsar.client.service-url} and {@code spring.pulsar.admin.service-url}
 * as its first property source and the {@link CnxsimServer} as a bean, and
 * stops serve when it is closed. Contexts of classes with the same annotation
 * attributes are one cached context, and so share one server.
 */
public final class CnxsimContextCustomizerFactory implements ContextCustomizerFactory {
    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> attributes) {
        return AnnotationSupport.findAnnotation(testClass, CnxsimServe.class).map(Customizer::new).orElse(null);
    }

    /** Equal for equal attributes, as Spring's context cache requires of a customizer. */
    private record Customizer(CnxsimServe options) implements ContextCustomizer {
        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            CnxsimServer server = CnxsimExtension.start(options);
            context.getEnvironment().getPropertySources()
                    .addFirst(new MapPropertySource("cnxsim", Map.copyOf(CnxsimServer.springProperties(server))));
            context.getBeanFactory().registerSingleton("cnxsimServer", server);
            context.addApplicationListener((ApplicationListener<ContextClosedEvent>) event -> {
                if (event.getApplicationContext() == context) {
                    server.close();
                }
            });
        }
    }
}
