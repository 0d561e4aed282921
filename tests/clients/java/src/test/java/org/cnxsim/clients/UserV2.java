package org.cnxsim.clients;

/** User with a field added that has a default (null): a BACKWARD-compatible evolution of User. */
public class UserV2 {
    public String name;
    public int age;
    public String email;

    public UserV2() {}

    public UserV2(String name, int age, String email) {
        this.name = name;
        this.age = age;
        this.email = email;
    }
}
