package org.cnxsim.springboot;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.pulsar.client.api.PulsarClientException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.pulsar.annotation.PulsarListener;
import org.springframework.pulsar.core.PulsarTemplate;
import org.springframework.stereotype.Component;

/**
 * A small Spring Boot application with spring-boot-starter-pulsar, as users
 * write one: a PulsarTemplate producer and a @PulsarListener consumer of
 * {@link Greeting}, whose topic and JSON schema come from Boot's type mapping
 * (application.properties). No service URL is configured: Boot's defaults,
 * pulsar://localhost:6650 and http://localhost:8080, apply.
 */
@SpringBootApplication
public class GreetingsApplication {
    public static void main(String[] args) {
        SpringApplication.run(GreetingsApplication.class, args);
    }

    /** Sends greetings to the type mapping's topic. */
    @Component
    public static class GreetingSender {
        private final PulsarTemplate<Greeting> template;

        public GreetingSender(PulsarTemplate<Greeting> template) {
            this.template = template;
        }

        public void greet(String name, int count) throws PulsarClientException {
            template.send(new Greeting(name, count));
        }
    }

    /** Receives greetings; the test reads what arrived. */
    @Component
    public static class GreetingListener {
        private final BlockingQueue<Greeting> received = new LinkedBlockingQueue<>();

        @PulsarListener(subscriptionName = "greetings-app", topics = "greetings")
        void onGreeting(Greeting greeting) {
            received.add(greeting);
        }

        public BlockingQueue<Greeting> received() {
            return received;
        }
    }
}
