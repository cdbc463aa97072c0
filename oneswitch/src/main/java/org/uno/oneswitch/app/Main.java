package org.uno.oneswitch.app;

/** Placeholder. */
public final class Main {
    public static void main(String[] args) {
        System.out.println("x");
    }
}
