package dev.tether.bench;

import java.io.Serializable;

/**
 * {@link TypedMessage}'s fields as the Java bean a Dubbo user sends through hessian2. Public with a
 * no-argument constructor and setters, because hessian2 builds it that way.
 */
public final class DubboMessage implements Serializable {

  private static final long serialVersionUID = 1L;

  private long id;
  private String name;
  private byte[] data;

  public DubboMessage() {}

  DubboMessage(long id, String name, byte[] data) {
    this.id = id;
    this.name = name;
    this.data = data;
  }

  public long getId() {
    return id;
  }

  public void setId(long id) {
    this.id = id;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public byte[] getData() {
    return data;
  }

  public void setData(byte[] data) {
    this.data = data;
  }
}
