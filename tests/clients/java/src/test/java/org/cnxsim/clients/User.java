package org.cnxsim.clients;

import java.util.Objects;

/** A POJO as applications write them; Schema.AVRO / Schema.JSON derive the definition from it. */
public class User {
    public String name;
    public int age;

    public User() {}

    public User(String name, int age) {
        this.name = name;
        this.age = age;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof User u && Objects.equals(name, u.name) && age == u.age;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, age);
    }

    @Override
    public String toString() {
        return "User(" + name + ", " + age + ")";
    }
}
