import Foundation

/// The bookkeeping behind `MemoryCache`: a dictionary into a doubly linked list, most recently
/// used at the head. Not thread-safe by itself; `MemoryCache` holds it behind its lock.
struct LRUStorage {
    final class Node {
        let key: ImageCacheKey
        var image: PlatformImage
        var cost: Int
        var storedAt: Date
        var previous: Node?   // towards the head (more recent)
        var next: Node?       // towards the tail (less recent)
        init(key: ImageCacheKey, image: PlatformImage, cost: Int, storedAt: Date) {
            self.key = key; self.image = image; self.cost = cost; self.storedAt = storedAt
        }
    }

    var costLimit: Int
    var countLimit: Int
    var entryCostLimitRatio = 0.1
    var backgroundTrimFraction = 0.1
    var timeToLive: TimeInterval?
    private(set) var entries: [ImageCacheKey: Node] = [:]
    private(set) var totalCost = 0
    private var head: Node?
    private var tail: Node?

    init(costLimit: Int, countLimit: Int, timeToLive: TimeInterval?) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.timeToLive = timeToLive
    }

    mutating func value(forKey key: ImageCacheKey, now: Date) -> PlatformImage? {
        guard let node = entries[key] else { return nil }
        if let ttl = timeToLive, now.timeIntervalSince(node.storedAt) >= ttl {
            remove(key)
            return nil
        }
        moveToHead(node)
        return node.image
    }

    mutating func insert(_ image: PlatformImage, forKey key: ImageCacheKey, cost: Int, now: Date) {
        guard Double(cost) <= Double(costLimit) * entryCostLimitRatio else {
            remove(key) // a stale smaller version must not outlive the refused new one
            return
        }
        if let node = entries[key] {
            totalCost += cost - node.cost
            node.image = image
            node.cost = cost
            node.storedAt = now
            moveToHead(node)
        } else {
            let node = Node(key: key, image: image, cost: cost, storedAt: now)
            entries[key] = node
            totalCost += cost
            link(atHead: node)
        }
        trim()
    }

    mutating func remove(_ key: ImageCacheKey) {
        guard let node = entries.removeValue(forKey: key) else { return }
        unlink(node)
        totalCost -= node.cost
    }

    mutating func removeAll() {
        // Unlink iteratively: releasing a long chain recursively could overflow the stack.
        var node = head
        while let current = node { node = current.next; current.previous = nil; current.next = nil }
        entries.removeAll()
        head = nil; tail = nil; totalCost = 0
    }

    mutating func trim() { trim(toCost: costLimit, toCount: countLimit) }

    mutating func trim(toCost cost: Int, toCount count: Int) {
        while let last = tail, totalCost > cost || entries.count > count {
            remove(last.key)
        }
    }

    var keysInUseOrder: [ImageCacheKey] {
        var keys: [ImageCacheKey] = []
        var node = head
        while let current = node { keys.append(current.key); node = current.next }
        return keys
    }

    private mutating func moveToHead(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        link(atHead: node)
    }

    private mutating func link(atHead node: Node) {
        node.next = head
        node.previous = nil
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private mutating func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }
}
