/**
 * Spring Boot auto-configuration for Tether: a runtime from {@code tether.*} properties, a server
 * for {@link dev.tether.spring.TetherService} beans, proxies as beans, health, meters, drain on
 * close.
 */
package dev.tether.spring;
