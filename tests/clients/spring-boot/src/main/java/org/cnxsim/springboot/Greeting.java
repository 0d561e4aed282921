package org.cnxsim.springboot;

/** The application's message: its JSON schema comes from this record (Boot's type mapping, application.properties). */
public record Greeting(String name, int count) {}
