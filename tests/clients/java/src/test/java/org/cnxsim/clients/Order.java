package org.cnxsim.clients;

/** A record unrelated to User: its schema is incompatible with User's under BACKWARD / FULL. */
public class Order {
    public long id;
    public double amount;

    public Order() {}

    public Order(long id, double amount) {
        this.id = id;
        this.amount = amount;
    }
}
