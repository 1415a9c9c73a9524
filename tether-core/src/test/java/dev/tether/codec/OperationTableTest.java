package dev.tether.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tether.Idempotent;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class OperationTableTest {
  interface Account {
    @Idempotent
    long balance(String owner);

    void withdraw(String owner, long amount);

    default String describe() {
      return "account";
    }
  }

  interface Overloaded {
    void pay(long amount);

    void pay(String amount);
  }

  @Test
  void everyCopyOfAMethodFindsTheSameOperation() throws Exception {
    OperationTable table = OperationTable.of(Account.class);
    // Class.getMethod hands out a new Method object each time; a dynamic proxy reuses its own.
    Method first = Account.class.getMethod("balance", String.class);
    Method second = Account.class.getMethod("balance", String.class);
    assertThat(first).isNotSameAs(second);

    Operation op = table.forMethod(first);
    assertThat(op.name()).isEqualTo("balance");
    assertThat(op.isIdempotent()).isTrue();
    assertThat(table.forMethod(second)).isSameAs(op);
    assertThat(table.forMethod(first)).isSameAs(op);
    assertThat(table.forName("balance")).isSameAs(op);
  }

  @Test
  void manyFreshCopiesOfOneMethodStillResolve() throws Exception {
    OperationTable table = OperationTable.of(Account.class);
    for (int i = 0; i < 1_000; i++) {
      Method copy = Account.class.getMethod("withdraw", String.class, long.class);
      assertThat(table.forMethod(copy).name()).isEqualTo("withdraw");
    }
  }

  @Test
  void defaultAndObjectMethodsAreNotRemote() throws Exception {
    OperationTable table = OperationTable.of(Account.class);
    assertThat(table.forMethod(Account.class.getMethod("describe"))).isNull();
    assertThat(table.forMethod(Object.class.getMethod("hashCode"))).isNull();
    assertThat(table.forName("describe")).isNull();
  }

  @Test
  void overloadedOperationNamesAreRejected() {
    assertThatThrownBy(() -> OperationTable.of(Overloaded.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overloads pay");
  }
}
