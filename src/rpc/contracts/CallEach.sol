// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice Never deployed: `eth_call` runs its creation code with the arguments appended, and the
/// constructor returns, in place of runtime code, `abi.encode(attempted, ok, results)` for the calls it
/// attempted, the first `attempted` of those given. So one
/// `eth_call` reads many contracts against one block's state, which a node then loads once.
/// @dev Each call gets at most `gasEach`, so one contract that burns its gas cannot starve the others.
/// The loop stops (`attempted` < the number of calls, and the caller asks for the rest again) before
/// one more answer could make the returned code longer than a creation may return (24,576 bytes,
/// EIP-170), or when what is left could not pay for one more call and for returning everything (a
/// creation pays 200 gas a byte of its code). Return data is cut at `maxReturn` bytes.
contract CallEach {
    constructor(address[] memory targets, bytes[] memory data, uint256 gasEach, uint256 maxReturn) {
        uint256 count = targets.length;
        bool[] memory ok = new bool[](count);
        bytes[] memory results = new bytes[](count);
        uint256 attempted;
        // abi.encode's words: attempted, two offsets and two lengths; per attempted call an ok, an
        // offset, a length and its answer, padded to words.
        uint256 encodedBytes = 160;
        while (
            attempted < count && encodedBytes + 96 + maxReturn + 32 <= 24_576
                && gasleft() > gasEach + 100_000 + 250 * (encodedBytes + 96 + maxReturn + 32)
        ) {
            (ok[attempted], results[attempted]) = callOne(targets[attempted], data[attempted], gasEach, maxReturn);
            encodedBytes += 96 + ((results[attempted].length + 31) / 32) * 32;
            attempted++;
        }
        // Only the attempted calls are answered: the arrays are cut to them in place.
        assembly {
            mstore(ok, attempted)
            mstore(results, attempted)
        }
        bytes memory encoded = abi.encode(attempted, ok, results);
        assembly {
            return(add(encoded, 32), mload(encoded))
        }
    }

    function callOne(address target, bytes memory input, uint256 gasLimit, uint256 maxReturn)
        private
        returns (bool success, bytes memory output)
    {
        assembly {
            success := call(gasLimit, target, 0, add(input, 32), mload(input), 0, 0)
            let size := returndatasize()
            if gt(size, maxReturn) { size := maxReturn }
            output := mload(0x40)
            mstore(output, size)
            returndatacopy(add(output, 32), 0, size)
            mstore(0x40, add(add(output, 32), and(add(size, 31), not(31))))
        }
    }
}
