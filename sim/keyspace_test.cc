#include "sim/keyspace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redsim::sim {
namespace {

std::vector<std::string> fields(const Hash& h) {
  std::vector<std::string> out;
  for (const auto& [f, v] : h.entries()) out.push_back(f + "=" + v);
  return out;
}

TEST(Hash, KeepsInsertionOrderAcrossReplaceAndErase) {
  Hash h;
  EXPECT_TRUE(h.set("a", "1"));
  EXPECT_TRUE(h.set("b", "2"));
  EXPECT_TRUE(h.set("c", "3"));
  EXPECT_FALSE(h.set("b", "20"));  // replaced in place
  EXPECT_TRUE(h.set("d", "4"));
  EXPECT_EQ(fields(h), (std::vector<std::string>{"a=1", "b=20", "c=3", "d=4"}));
  EXPECT_TRUE(h.erase("b"));
  EXPECT_FALSE(h.erase("b"));
  EXPECT_TRUE(h.set("b", "5"));  // back at the end
  EXPECT_EQ(fields(h), (std::vector<std::string>{"a=1", "c=3", "d=4", "b=5"}));
  ASSERT_NE(h.find("c"), nullptr);
  EXPECT_EQ(*h.find("c"), "3");
  EXPECT_EQ(h.find("x"), nullptr);
}

TEST(Hash, LargeHashStaysOrderedAndFindable) {
  Hash h;
  for (int i = 0; i < 200; ++i) h.set("f" + std::to_string(i), std::to_string(i));
  for (int i = 0; i < 200; i += 3) ASSERT_TRUE(h.erase("f" + std::to_string(i)));
  for (int i = 0; i < 200; ++i) {
    const std::string* v = h.find("f" + std::to_string(i));
    if (i % 3 == 0) {
      EXPECT_EQ(v, nullptr) << i;
    } else {
      ASSERT_NE(v, nullptr) << i;
      EXPECT_EQ(*v, std::to_string(i));
    }
  }
  EXPECT_EQ(h.entries().front().first, "f1");
  EXPECT_EQ(h.entries().back().first, "f199");
  EXPECT_FALSE(h.set("f1", "x"));
  EXPECT_EQ(h.entries().front().second, "x");
}

class DbTest : public ::testing::Test {
 protected:
  Keyspace ks_{16, nullptr};
  Db& db_ = ks_.db(0);
};

TEST_F(DbTest, ExpiredOnlyStrictlyAfterTheDeadline) {
  Entry& e = db_.set_string("k", "v", false);
  db_.set_expire("k", e, 1000);
  EXPECT_NE(db_.lookup("k", 999), nullptr);
  EXPECT_NE(db_.lookup("k", 1000), nullptr);  // now == deadline: still there
  EXPECT_EQ(db_.size(), 1u);
  EXPECT_EQ(db_.lookup("k", 1001), nullptr);  // 1 ms later: gone
  EXPECT_EQ(db_.size(), 0u);                  // and deleted, not just hidden
  EXPECT_EQ(db_.volatile_count(), 0u);
}

TEST_F(DbTest, PeekSeesExpiredEntriesWithoutDeleting) {
  Entry& e = db_.set_string("k", "v", false);
  db_.set_expire("k", e, 10);
  ASSERT_NE(db_.peek("k"), nullptr);
  EXPECT_TRUE(db_.peek("k")->expired_at(11));
  EXPECT_EQ(db_.size(), 1u);
}

TEST_F(DbTest, SetStringDropsOrKeepsTheDeadline) {
  Entry& e = db_.set_string("k", "v", false);
  db_.set_expire("k", e, 500);
  EXPECT_EQ(db_.set_string("k", "w", /*keep_ttl=*/true).expire_ms, 500);
  EXPECT_EQ(db_.volatile_count(), 1u);
  EXPECT_EQ(db_.set_string("k", "x", /*keep_ttl=*/false).expire_ms, Entry::kNoExpire);
  EXPECT_EQ(db_.volatile_count(), 0u);
}

TEST_F(DbTest, SetStringReplacesAHash) {
  Hash h;
  h.set("f", "v");
  db_.add("k", std::move(h));
  Entry& e = db_.set_string("k", "s", false);
  EXPECT_TRUE(e.is_string());
  EXPECT_EQ(e.str(), "s");
  EXPECT_EQ(type_name(e.type()), "string");
}

TEST_F(DbTest, DatabasesAreSeparate) {
  ks_.db(0).set_string("k", "zero", false);
  ks_.db(3).set_string("k", "three", false);
  EXPECT_EQ(ks_.db(0).lookup("k", 0)->str(), "zero");
  EXPECT_EQ(ks_.db(3).lookup("k", 0)->str(), "three");
  EXPECT_EQ(ks_.db(1).lookup("k", 0), nullptr);
  ks_.db(3).clear(0);
  EXPECT_EQ(ks_.db(3).size(), 0u);
  EXPECT_EQ(ks_.db(0).size(), 1u);
  ks_.clear(0);
  EXPECT_EQ(ks_.db(0).size(), 0u);
}

// Fills db 0 with keys k00..k(n-1), each expiring at `deadline`.
void fill(Db& db, int n, int64_t deadline) {
  for (int i = 0; i < n; ++i) {
    std::string key = (i < 10 ? "k0" : "k") + std::to_string(i);
    Entry& e = db.set_string(key, "v", false);
    db.set_expire(key, e, deadline);
  }
}

TEST_F(DbTest, ActiveExpireExaminesABudgetInKeyOrderFromARotatingCursor) {
  fill(db_, 10, 100);
  for (int i = 0; i < 10; i += 2) {  // even keys live longer
    std::string key = "k0" + std::to_string(i);
    db_.set_expire(key, *db_.peek(key), 1000);
  }
  db_.set_string("persistent", "v", false);
  // At 101: odd keys are expired. Budget 4 examines k00..k03: deletes k01, k03.
  EXPECT_EQ(db_.active_expire(101, 4), 2u);
  EXPECT_EQ(db_.peek("k01"), nullptr);
  EXPECT_EQ(db_.peek("k03"), nullptr);
  EXPECT_NE(db_.peek("k05"), nullptr);
  // Next pass resumes after k03: k04..k07 -> deletes k05, k07.
  EXPECT_EQ(db_.active_expire(101, 4), 2u);
  EXPECT_NE(db_.peek("k09"), nullptr);
  // Then k08, k09, wraps to k00, k02: deletes k09 only.
  EXPECT_EQ(db_.active_expire(101, 4), 1u);
  EXPECT_EQ(db_.peek("k09"), nullptr);
  EXPECT_EQ(db_.volatile_count(), 5u);
  EXPECT_NE(db_.peek("persistent"), nullptr);  // no deadline: never examined
}

TEST_F(DbTest, ActiveExpireIsDeterministic) {
  auto run = [] {
    Keyspace ks(16, nullptr);
    Db& db = ks.db(0);
    fill(db, 50, 100);
    std::vector<size_t> deleted;
    for (int pass = 0; pass < 5; ++pass) deleted.push_back(db.active_expire(101, 7));
    std::vector<std::string> left;
    for (int i = 0; i < 50; ++i) {
      std::string key = (i < 10 ? "k0" : "k") + std::to_string(i);
      if (db.peek(key) != nullptr) left.push_back(key);
    }
    return std::make_pair(deleted, left);
  };
  auto a = run();
  auto b = run();
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.first, (std::vector<size_t>{7, 7, 7, 7, 7}));
  EXPECT_EQ(a.second.size(), 15u);
  EXPECT_EQ(a.second.front(), "k35");  // key order: k00..k34 went first
}

TEST_F(DbTest, ActiveExpireLeavesLiveKeysAndCountsNothingWhenNoneExpired) {
  fill(db_, 5, 100);
  EXPECT_EQ(db_.active_expire(100, 20), 0u);  // at the deadline: not expired
  EXPECT_EQ(db_.size(), 5u);
  EXPECT_EQ(db_.active_expire(101, 20), 5u);
  EXPECT_EQ(db_.size(), 0u);
  EXPECT_EQ(db_.active_expire(101, 20), 0u);
}

TEST_F(DbTest, KeyspaceActiveExpireCoversEveryDb) {
  fill(ks_.db(0), 3, 100);
  fill(ks_.db(15), 2, 100);
  EXPECT_EQ(ks_.active_expire(101, 20), 5u);
}

// The fuzz targets' invariant (Db::inconsistency): it holds through adds,
// deadlines and removals, and names what a command could break.
TEST(Db, InconsistencyIsEmptyWhileTheIndexesAgree) {
  Db db(0, nullptr);
  db.set_string("a", "1", false);
  db.set_expire("a", *db.peek("a"), 100);
  db.add("h", Hash{}).hash().set("f", "v");
  EXPECT_EQ(db.inconsistency(), "");
  db.set_expire("a", *db.peek("a"), Entry::kNoExpire);
  EXPECT_TRUE(db.remove("h"));
  EXPECT_EQ(db.inconsistency(), "");
  db.add("empty", List{});
  EXPECT_EQ(db.inconsistency(), "an empty collection is stored: empty");
  EXPECT_TRUE(db.remove("empty"));
  db.peek("a")->expire_ms = 5;  // a deadline set behind the index's back
  EXPECT_EQ(db.inconsistency(), "a deadline is not indexed: a");
}

// A key created and deleted again and again (a lock's hash) reuses the
// nodes and the small hash the last deletion left: the key order, the
// deadline index and every new entry are as with fresh memory.
TEST(Db, RecycledNodesGiveFreshEntriesInTheSameOrder) {
  Db db(0, nullptr);
  Db fresh(0, nullptr);
  for (Db* d : {&db, &fresh}) {
    for (const char* k : {"a", "b", "c", "d"}) d->set_string(k, "1", false);
    d->set_expire("b", *d->peek("b"), 500);
  }
  auto order = [](const Db& d) {
    std::vector<std::string> keys;
    d.for_each([&](const std::string& k, const Entry&) { keys.push_back(k); });
    return keys;
  };
  const std::string long_key(100, 'k');  // a buffer too long to keep
  for (int cycle = 0; cycle < 3; ++cycle) {
    for (const std::string& key : {std::string("lock"), long_key}) {
      Hash& h = db.add_hash(key);
      EXPECT_TRUE(h.empty());
      EXPECT_TRUE(h.listpack());
      h.set("owner:" + std::to_string(cycle), "1");
      db.set_expire(key, *db.peek(key), 1000 + cycle);
      fresh.add(key, Hash{});
      EXPECT_EQ(order(db), order(fresh));
      EXPECT_EQ(db.volatile_count(), 2u);
      EXPECT_EQ(db.inconsistency(), "");
      EXPECT_EQ(fields(db.peek(key)->hash()),
                (std::vector<std::string>{"owner:" + std::to_string(cycle) + "=1"}));
      EXPECT_TRUE(db.remove_live(key, 0));
      EXPECT_TRUE(fresh.remove(key));
      EXPECT_EQ(db.volatile_count(), 1u);
      EXPECT_EQ(db.inconsistency(), "");
    }
    // A string key in the recycled node: no deadline, encoding by content.
    Entry& e = db.set_string("s", "v", false);
    EXPECT_FALSE(e.has_expire());
    EXPECT_EQ(e.str_encoding, StringEncoding::kByContent);
    EXPECT_TRUE(db.remove("s"));
  }
  // A hash moved out (RENAME) before its key is deleted leaves nothing to reuse.
  db.add_hash("h").set("f", "v");
  Entry moved = std::move(*db.peek("h"));
  EXPECT_TRUE(db.remove("h"));
  EXPECT_EQ(fields(moved.hash()), (std::vector<std::string>{"f=v"}));
  Hash& h2 = db.add_hash("h2");
  EXPECT_TRUE(h2.empty());
  h2.set("g", "w");
  EXPECT_EQ(db.inconsistency(), "");
}

// DEL's lookup-and-remove: a live key is deleted, an expired one is
// deleted lazily and does not count, an absent one is nothing.
TEST(Db, RemoveLiveDeletesLiveKeysAndExpiresExpiredOnes) {
  Db db(0, nullptr);
  db.set_string("k", "v", false);
  db.set_expire("k", *db.peek("k"), 100);
  EXPECT_TRUE(db.remove_live("k", 100));  // not expired at its deadline
  EXPECT_EQ(db.size(), 0u);
  db.set_string("k", "v", false);
  db.set_expire("k", *db.peek("k"), 100);
  EXPECT_FALSE(db.remove_live("k", 101));
  EXPECT_EQ(db.size(), 0u);
  EXPECT_EQ(db.volatile_count(), 0u);
  EXPECT_FALSE(db.remove_live("absent", 0));
}

TEST(Hash, ClearForReuseOnlyEmptiesSmallHashes) {
  Hash small;
  small.note_length(100);  // converted to a hashtable
  small.set("f", "v");
  EXPECT_TRUE(small.clear_for_reuse());
  EXPECT_TRUE(small.empty());
  EXPECT_TRUE(small.listpack());
  Hash big;
  for (int i = 0; i < 40; ++i) big.set("f" + std::to_string(i), "v");  // indexed
  EXPECT_FALSE(big.clear_for_reuse());
  EXPECT_EQ(big.size(), 40u);
}

// A string key costs its string and a tag: collections are boxed, so the
// largest collection does not size every entry.
TEST(Entry, CollectionsAreBoxedAndCopiesAreDeep) {
  static_assert(sizeof(Value) <= sizeof(std::string) + sizeof(void*));
  Entry a;
  a.value = Set();
  a.set().add("m");
  Entry b = a;
  b.set().add("n");
  EXPECT_EQ(a.set().size(), 1u);
  EXPECT_EQ(b.set().size(), 2u);
  EXPECT_EQ(b.type(), ValueType::kSet);
  const Entry& c = b;
  EXPECT_TRUE(c.set().contains("n"));
}

}  // namespace
}  // namespace redsim::sim
