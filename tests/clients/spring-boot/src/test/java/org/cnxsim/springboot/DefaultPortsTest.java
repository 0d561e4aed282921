package org.cnxsim.springboot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The application's test exactly as a user has it, no URL configured: it
 * passes against `cnxsim serve --port 6650 --admin-port 8080`, Boot's default
 * addresses (ctest clients.spring_boot starts it there).
 */
@SpringBootTest
class DefaultPortsTest extends GreetingsContract {
    @Test
    void bootsDefaultsAreUsed() {
        assertEquals("pulsar://localhost:6650", properties.getClient().getServiceUrl());
        assertEquals("http://localhost:8080", properties.getAdmin().getServiceUrl());
    }
}
