package dev.tether.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IntMapTest {
  @Test
  void behavesLikeAHashMapUnderRandomOperations() {
    Random random = new Random(11);
    IntMap<Integer> map = new IntMap<>();
    Map<Integer, Integer> reference = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      int key = random.nextInt(2_000) - 1_000;
      switch (random.nextInt(3)) {
        case 0 -> {
          map.put(key, i);
          reference.put(key, i);
        }
        case 1 -> assertThat(map.remove(key)).isEqualTo(reference.remove(key));
        default -> assertThat(map.get(key)).isEqualTo(reference.get(key));
      }
      assertThat(map.size()).isEqualTo(reference.size());
    }
  }

  @Test
  void sequentialIdsAsAConnectionUsesThemStayFindable() {
    IntMap<String> map = new IntMap<>();
    for (int id = 1; id <= 10_000; id++) {
      map.put(id, "call-" + id);
      if (id > 128) {
        assertThat(map.remove(id - 128)).isEqualTo("call-" + (id - 128));
      }
    }
    assertThat(map.size()).isEqualTo(128);
    assertThat(map.get(10_000)).isEqualTo("call-10000");
  }

  @Test
  void removeKeysTakesOnlyTheMatchingEntries() {
    IntMap<String> map = new IntMap<>();
    for (int id = 1; id <= 10; id++) {
      map.put(id, "v" + id);
    }
    assertThat(map.removeKeys(id -> id > 7)).containsExactlyInAnyOrder("v8", "v9", "v10");
    assertThat(map.size()).isEqualTo(7);
    assertThat(map.removeAll()).hasSize(7);
    assertThat(map.isEmpty()).isTrue();
  }

  @Test
  void aMapThatNeverHeldAnEntryAnswersEveryQuery() {
    IntMap<String> map = new IntMap<>();
    assertThat(map.get(1)).isNull();
    assertThat(map.remove(1)).isNull();
    assertThat(map.values()).isEmpty();
    assertThat(map.removeKeys(id -> true)).isEmpty();
    assertThat(map.removeAll()).isEmpty();
    assertThat(map.isEmpty()).isTrue();
  }

  @Test
  void takesEntriesAgainAfterRemoveAll() {
    IntMap<String> map = new IntMap<>();
    for (int id = 1; id <= 40; id++) {
      map.put(id, "v" + id);
    }
    assertThat(map.removeAll()).hasSize(40);
    assertThat(map.get(3)).isNull();
    map.put(3, "again");
    assertThat(map.get(3)).isEqualTo("again");
    assertThat(map.size()).isEqualTo(1);
  }
}
